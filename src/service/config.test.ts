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

  it('lets team API nodes listen beyond loopback and answer at their public addresses, and refuses both on the desktop', () => {
    const team = { TAKELINE_DATABASE_URL: 'postgres://tl@db.internal/takeline' };
    expect(loadConfig({})).toMatchObject({ host: '127.0.0.1', publicOrigins: [] });
    expect(loadConfig({ ...team, TAKELINE_HOST: '0.0.0.0', TAKELINE_PUBLIC_URL: 'https://Takeline.example.com/, http://takeline.lan:8080' })).toMatchObject({
      host: '0.0.0.0',
      publicOrigins: ['https://takeline.example.com', 'http://takeline.lan:8080'],
    });
    expect(() => loadConfig({ TAKELINE_HOST: '0.0.0.0' })).toThrow(/team API nodes/);
    expect(() => loadConfig({ TAKELINE_PUBLIC_URL: 'https://takeline.example.com' })).toThrow(/team API nodes/);
    expect(() => loadConfig({ ...team, TAKELINE_HOST: '10.0.0.5' })).toThrow(/TAKELINE_HOST must be/);
    for (const bad of ['takeline.example.com', 'https://takeline.example.com/studio', 'https://u:p@takeline.example.com', 'ftp://x.example']) {
      expect(() => loadConfig({ ...team, TAKELINE_PUBLIC_URL: bad }), bad).toThrow(/TAKELINE_PUBLIC_URL/);
    }
  });
});

describe('loadConfig: single sign-on', () => {
  const oidc = {
    TAKELINE_OIDC_ISSUER: 'https://login.example.org/realms/team',
    TAKELINE_OIDC_CLIENT_ID: 'takeline',
    TAKELINE_OIDC_CLIENT_SECRET: 'secret',
  };

  it('is off without the TAKELINE_OIDC_ variables, on with all three, the groups claim "groups" unless named', () => {
    expect(loadConfig({ HOME: '/tmp' }).oidc).toBeNull();
    expect(loadConfig({ HOME: '/tmp', ...oidc }).oidc).toEqual({ issuer: oidc.TAKELINE_OIDC_ISSUER, clientId: 'takeline', clientSecret: 'secret', groupsClaim: 'groups' });
    expect(loadConfig({ HOME: '/tmp', ...oidc, TAKELINE_OIDC_GROUPS_CLAIM: 'roles' }).oidc?.groupsClaim).toBe('roles');
  });

  it('stops start-up on half a configuration, a plain-http issuer off loopback, or an issuer that is no address', () => {
    expect(() => loadConfig({ HOME: '/tmp', TAKELINE_OIDC_ISSUER: oidc.TAKELINE_OIDC_ISSUER })).toThrow(/TAKELINE_OIDC_CLIENT_ID and TAKELINE_OIDC_CLIENT_SECRET/);
    expect(() => loadConfig({ HOME: '/tmp', ...oidc, TAKELINE_OIDC_CLIENT_SECRET: ' ' })).toThrow(ConfigError);
    expect(() => loadConfig({ HOME: '/tmp', ...oidc, TAKELINE_OIDC_ISSUER: 'http://login.example.org' })).toThrow(/https/);
    expect(() => loadConfig({ HOME: '/tmp', ...oidc, TAKELINE_OIDC_ISSUER: 'login.example.org' })).toThrow(/not an address/);
    expect(() => loadConfig({ HOME: '/tmp', ...oidc, TAKELINE_OIDC_ISSUER: 'https://login.example.org/?x=1' })).toThrow(/without query/);
    expect(loadConfig({ HOME: '/tmp', ...oidc, TAKELINE_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe('http://127.0.0.1:9000');
  });
});

describe('loadConfig: background work', () => {
  it('runs background work 10 nice steps down unless TAKELINE_BACKGROUND_NICE says otherwise (0 off; outside 0–19 the default)', () => {
    expect(loadConfig({ HOME: '/tmp' }).backgroundNice).toBe(10);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_BACKGROUND_NICE: '0' }).backgroundNice).toBe(0);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_BACKGROUND_NICE: '4' }).backgroundNice).toBe(4);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_BACKGROUND_NICE: '25' }).backgroundNice).toBe(10);
  });

  it('renders two dub lines at once unless TAKELINE_DUB_RENDER_PARALLEL says otherwise', () => {
    expect(loadConfig({ HOME: '/tmp' }).dubRenderParallel).toBe(2);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_DUB_RENDER_PARALLEL: '1' }).dubRenderParallel).toBe(1);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_DUB_RENDER_PARALLEL: '4.7' }).dubRenderParallel).toBe(4);
    expect(loadConfig({ HOME: '/tmp', TAKELINE_DUB_RENDER_PARALLEL: 'many' }).dubRenderParallel).toBe(2);
  });
});
