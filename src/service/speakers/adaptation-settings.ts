/** Per project speaker acoustic adaptation's settings: config.ts parses them, speaker-adaptation.ts follows them. */
export interface AdaptationSettings {
  /** Off: no statistics are kept and no chunk is decoded adapted. */
  enabled: boolean;
  /** Seconds of a speaker's aligned speech (over the kept recordings) before a transform is solved. */
  minSeconds: number;
  /** The newest recordings are kept while their seconds stay under this (at least one). */
  maxSeconds: number;
  maxRecordings: number;
  /**
   * Collect a new recording's statistics along the speaker's current transform (bw -mllrmat), so its
   * alignment comes from the adapted model; otherwise from the speaker-independent one.
   */
  alignAdapted: boolean;
  /**
   * Also adapt within each recording: a voice's later chunks decoded with a transform fitted to its earlier
   * ones in the same recording (transcription/request-adaptation.ts), project or not.
   */
  withinRecording: boolean;
  /**
   * Where a speaker has corrected speech, also re-estimate the model's means from it by MAP on top of
   * the MLLR transform (`means` beside the transform; decoders load it with `-mean`). Absent: on.
   */
  mapFromCorrections?: boolean;
}
