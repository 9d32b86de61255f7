/** Per-line quality, recording conditions and perceived quality (see README.md in this folder). */
export { detectConditions, type ConditionOptions } from './conditions';
export { DNSMOS_FILES, createDnsmos, type DnsmosOptions, type PerceivedQuality } from './dnsmos';
export type { DnsmosWindowing } from './dnsmos-features';
export {
  THRESHOLDS,
  estimatedOvrl,
  lineIssues,
  measureLine,
  measureLineQuality,
  qualityScore,
  toMeasuredQuality,
  type LineMeasures,
  type MeasuredQuality,
} from './line-quality';
export { MOS_MAX, MOS_MIN, mosOnScale, onMosScale } from './mos-scale';
export { localNoise, noiseProfile, type NoiseProfile } from './noise-profile';
export { clip as clipSpans } from './spans';
