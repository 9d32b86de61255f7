// Types for the `smpte-timecode` devDependency, used only as an independent reference in tests.
declare module 'smpte-timecode' {
  interface Timecode {
    frameCount: number;
    hours: number;
    minutes: number;
    seconds: number;
    frames: number;
    dropFrame: boolean;
    toString(format?: string): string;
  }
  interface TimecodeConstructor {
    (timeCode?: number | string, frameRate?: number | [number, number], dropFrame?: boolean): Timecode;
    new (timeCode?: number | string, frameRate?: number | [number, number], dropFrame?: boolean): Timecode;
  }
  const Timecode: TimecodeConstructor;
  export default Timecode;
}
