/** The Emscripten factory of @echogarden/svoxpico-wasm (the package ships no types); svox-pico.ts narrows the module. */
declare module '@echogarden/svoxpico-wasm' {
  const createModule: () => Promise<unknown>;
  export default createModule;
}
