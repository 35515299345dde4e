// Compile-only: checked by ../types.test.ts. The factory's result is a plugin in both hosts' configuration types.
import type { Configuration as RspackConfiguration } from '@rspack/core';
import type { Configuration as WebpackConfiguration } from 'webpack';
import berrypack from '@berrypack/webpack';

export const webpackConfig: WebpackConfiguration = { entry: './src/main.js', plugins: [berrypack({ strict: true })] };
export const rspackConfig: RspackConfiguration = { entry: './src/main.js', plugins: [berrypack({ include: ['**/agents/**'], namedExports: true })] };
// @ts-expect-error an unknown option
berrypack({ strictt: true });
