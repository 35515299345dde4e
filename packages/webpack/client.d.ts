// `@berrypack/webpack/client`, kept for projects that reference it: the module types of `?berrypack`
// imports live once, in @berrypack/compiler/client, for every bundler plugin.
/// <reference types="@berrypack/compiler/client" />
