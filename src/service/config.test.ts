import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_DECODER_IDLE_SECONDS, DEFAULT_SPEAKER_ADAPTATION, decoderIdleSeconds, loadConfig } from './config';

describe('loadConfig: speaker adaptation', () => {
  it('adapts within a recording by default, and each switch turns only its own part off', () => {
    expect(loadConfig({ HOME: '/tmp' }).speakerAdaptation).toEqual(DEFAULT_SPEAKER_ADAPTATION);
    expect(DEFAULT_SPEAKER_ADAPTATION.withinRecording).toBe(true);
    const within = loadConfig({
      HOME: '/tmp',
      TAKELINE_ADAPTATION_WITHIN_RECORDING: 'off',
    }).speakerAdaptation;
    expect(within).toEqual({ ...DEFAULT_SPEAKER_ADAPTATION, withinRecording: false });
    expect(DEFAULT_SPEAKER_ADAPTATION.mapFromCorrections).toBe(true);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_ADAPTATION_MAP: 'off' }).speakerAdaptation).toEqual({ ...DEFAULT_SPEAKER_ADAPTATION, mapFromCorrections: false });
    expect(loadConfig({ HOME: '/tmp', TAKELINE_SPEAKER_ADAPTATION: 'off' }).speakerAdaptation.enabled).toBe(
      false,
    );
    expect(
      loadConfig({ HOME: '/tmp', TAKELINE_ADAPTATION_MIN_SECONDS: '15' }).speakerAdaptation.minSeconds,
    ).toBe(15);
  });

  it('decodes with the pronunciation variants unless TAKELINE_PRONUNCIATION_VARIANTS is off', () => {
    expect(loadConfig({ HOME: '/tmp' }).pronunciationVariants).toBe(true);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_PRONUNCIATION_VARIANTS: 'off' }).pronunciationVariants).toBe(false);
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_PRONUNCIATION_VARIANTS: 'sometimes' })).toThrow(
      /TAKELINE_PRONUNCIATION_VARIANTS/,
    );
  });

  it('denoises noisy chunks for PocketSphinx unless TAKELINE_DENOISE is off', () => {
    expect(loadConfig({ HOME: '/tmp' }).denoise).toBe(true);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_DENOISE: 'off' }).denoise).toBe(false);
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_DENOISE: 'loud' })).toThrow(/TAKELINE_DENOISE/);
  });

  it('dereverberates reverberant chunks for PocketSphinx unless TAKELINE_DEREVERB is off', () => {
    expect(loadConfig({ HOME: '/tmp' }).dereverb).toBe(true);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_DEREVERB: 'off' }).dereverb).toBe(false);
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_DEREVERB: 'dry' })).toThrow(/TAKELINE_DEREVERB/);
  });

  it('refuses a switch it cannot read, naming the variable', () => {
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_ADAPTATION_WITHIN_RECORDING: 'maybe' })).toThrow(
      ConfigError,
    );
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_ADAPTATION_WITHIN_RECORDING: 'maybe' })).toThrow(
      /TAKELINE_ADAPTATION_WITHIN_RECORDING/,
    );
  });
});

describe('loadConfig: the database', () => {
  it('is the embedded one unless TAKELINE_DATABASE_URL names a PostgreSQL server', () => {
    expect(loadConfig({}).databaseUrl).toBeNull();
    expect(loadConfig({ TAKELINE_DATABASE_URL: 'postgres://tl@db.internal:5432/takeline' }).databaseUrl).toBe('postgres://tl@db.internal:5432/takeline');
    expect(loadConfig({ TAKELINE_DATABASE_URL: ' postgresql://db/takeline ' }).databaseUrl).toBe('postgresql://db/takeline');
    for (const bad of ['mysql://db/x', 'not a url', 'sqlite:///tmp/x.db']) {
      expect(() => loadConfig({ TAKELINE_DATABASE_URL: bad })).toThrow(/TAKELINE_DATABASE_URL must be a postgres:\/\/ URL/);
    }
  });
});

describe('decoderIdleSeconds (TAKELINE_DECODER_IDLE_SECONDS)', () => {
  it('defaults to 30 s, takes whole seconds (0 keeps the decoders up) and refuses anything else at start-up', () => {
    expect(decoderIdleSeconds({})).toBe(DEFAULT_DECODER_IDLE_SECONDS);
    expect(DEFAULT_DECODER_IDLE_SECONDS).toBe(30);
    expect(decoderIdleSeconds({ TAKELINE_DECODER_IDLE_SECONDS: '0' })).toBe(0);
    expect(decoderIdleSeconds({ TAKELINE_DECODER_IDLE_SECONDS: '120' })).toBe(120);
    expect(() => decoderIdleSeconds({ TAKELINE_DECODER_IDLE_SECONDS: '-1' })).toThrow(/TAKELINE_DECODER_IDLE_SECONDS must be a whole number/);
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_DECODER_IDLE_SECONDS: 'soon' })).toThrow(/TAKELINE_DECODER_IDLE_SECONDS/);
  });
});
