export {
  FRAME_RATES,
  type FrameRate,
  type Rational,
  isFrameRate,
  rationalRate,
  frameDuration,
  framesPerSecond,
  nominalRate,
  supportsDropFrame,
} from './rates';
export {
  type Timebase,
  type ParseTimecodeResult,
  parseTimecode,
  formatTimecode,
  framesPerDay,
} from './label';
export {
  type TimecodeClock,
  secondsToFrames,
  secondsToFramesCeil,
  framesToSeconds,
  startFrames,
  secondsToTimecode,
  timecodeToSeconds,
} from './seconds';
