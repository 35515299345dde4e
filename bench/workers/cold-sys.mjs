#!/usr/bin/env node
// Process-level cost of cold builds, for before/after comparisons on a loaded machine: each
// variant runs as a fresh process under `/usr/bin/time`, the variants interleaved round by
// round (the order rotated per round), its out folder emptied before every run. Per run: wall
// time, user and system CPU, peak RSS, minor page faults, voluntary and involuntary context
// switches. Prints each round, then the medians and the median per-round ratio of each variant
// to the first, with the 1-minute load average beside every round.
//
//   node bench/workers/cold-sys.mjs --rounds 8 \
//     floor='node bench/floor.mjs PKG {OUT}.json' \
//     cli='node packages/cli/bin/berrypack.js build PKG --out-dir {OUT} --no-cache'
//
// `{OUT}` is replaced by a folder of the variant's own under the system's temporary folder; a
// command is split on spaces (no shell). Wall time is taken here around the spawn (the same
// small overhead of /usr/bin/time on every side); CPU comes from GNU time (10 ms steps), so use
// many rounds. Linux only.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
let rounds = 6;
const variants = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--rounds') rounds = Number(args[++i]);
  else {
    const eq = args[i].indexOf('=');
    if (eq <= 0) throw new Error(`Unexpected argument ${args[i]}, expected NAME='COMMAND' or --rounds R`);
    variants.push({ name: args[i].slice(0, eq), command: args[i].slice(eq + 1), runs: [] });
  }
}
if (variants.length === 0) throw new Error('Unexpected no variants, expected NAME=COMMAND arguments');

const work = mkdtempSync(path.join(os.tmpdir(), 'berrypack-cold-sys-'));
const FIELDS = ['wall', 'user', 'sys', 'rssMB', 'minflt', 'vcs', 'ics'];

function once(variant) {
  const out = path.join(work, variant.name);
  rmSync(out, { recursive: true, force: true });
  // Split on spaces, no shell: its start would blur the wall time (measured here, to the microsecond).
  const command = variant.command.replaceAll('{OUT}', out).split(' ').filter(Boolean);
  const t0 = process.hrtime.bigint();
  const r = spawnSync('/usr/bin/time', ['-f', 'TIME %U %S %M %R %w %c', ...command], { encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] });
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  const line = r.stderr.split('\n').find((l) => l.startsWith('TIME '));
  if (r.status !== 0 || !line) throw new Error(`${variant.name} failed (${r.status}): ${r.stderr.slice(-800)}`);
  const [user, sys, rssKB, minflt, vcs, ics] = line.slice(5).split(' ').map(Number);
  return { wall, user: user * 1000, sys: sys * 1000, rssMB: rssKB / 1024, minflt, vcs, ics };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (r) =>
  `wall ${r.wall.toFixed(0)} cpu ${(r.user + r.sys).toFixed(0)} (usr ${r.user.toFixed(0)} sys ${r.sys.toFixed(0)}) rss ${r.rssMB.toFixed(0)} minflt ${r.minflt} vcs ${r.vcs} ics ${r.ics}`;

try {
  for (let round = 0; round < rounds; round++) {
    const load = os.loadavg()[0].toFixed(1);
    const order = variants.map((_, i) => variants[(i + round) % variants.length]);
    for (const v of order) v.runs[round] = once(v);
    console.log(`round ${round + 1} (load ${load}):`);
    for (const v of variants) console.log(`  ${v.name.padEnd(12)} ${fmt(v.runs[round])}`);
  }
  console.log(`medians over ${rounds} rounds (load now ${os.loadavg()[0].toFixed(1)}):`);
  const base = variants[0];
  for (const v of variants) {
    const m = Object.fromEntries(FIELDS.map((f) => [f, median(v.runs.map((r) => r[f]))]));
    const ratio = (f) => median(v.runs.map((r, i) => r[f] / base.runs[i][f])).toFixed(3);
    const cpu = (r) => r.user + r.sys;
    const cpuRatio = median(v.runs.map((r, i) => cpu(r) / cpu(base.runs[i]))).toFixed(3);
    console.log(`  ${v.name.padEnd(12)} ${fmt(m)}`);
    if (v !== base) console.log(`  ${''.padEnd(12)} / ${base.name}: wall ${ratio('wall')} cpu ${cpuRatio} sys ${ratio('sys')} rss ${ratio('rssMB')}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
