import { RuntimeError } from '../errors.js';

/**
 * A mistake of the caller of the method API (an unknown run, a step that is not waiting, a
 * response of the wrong type): thrown, and the run on disk is left as it was. What goes wrong
 * inside a run is recorded in the run instead.
 */
export class MethodError extends RuntimeError {
  override name = 'MethodError';
  constructor(code: string, message: string) {
    super(code, message, 'MTH-18');
  }
}
