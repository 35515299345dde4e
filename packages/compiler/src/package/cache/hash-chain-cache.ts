import { HashChain } from '../../bundle/hash-chain.js';
import { Sweeper } from './sweeper.js';

/**
 * One hash chain per package built (by its plugin.json), so the next build's bundle id hashes
 * only what changed (see HashChain), and the bytes hashed and reused, for the compiler's stats.
 * A one-shot compiler never builds a package again: its chain keeps nothing.
 */
export class HashChainCache {
  readonly #entries = new Map<string, HashChain>();
  readonly #live = new Sweeper();
  readonly #count = (hashed: number, reused: number) => {
    this.hashed += hashed;
    this.reused += reused;
  };
  readonly #oneShot: HashChain | undefined;
  hashed = 0;
  reused = 0;

  constructor(oneShot: boolean) {
    this.#oneShot = oneShot ? new HashChain(false, this.#count) : undefined;
  }

  chainFor(manifestFile: string): HashChain {
    if (this.#oneShot) return this.#oneShot;
    this.#live.use(manifestFile);
    let chain = this.#entries.get(manifestFile);
    if (chain === undefined) this.#entries.set(manifestFile, (chain = new HashChain(true, this.#count)));
    return chain;
  }

  sweep(root: string): void {
    this.#live.sweep(root, this.#entries);
  }
}
