import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { writeFileAtomic } from '../storage/files';
import { SqlBrowserSessionStore } from '../storage/browser-sessions';
import { resolveLanguage } from '../models/registry';
import { SqlSignInTokens } from '../storage/sign-in-tokens';
import { PeaksCache } from '../recordings/peaks-cache';
import { Recordings } from '../recordings/recordings';
import { Projects } from '../projects/projects';
import { SqlEditorMarkerStore } from '../storage/editor-marker-store';
import { hashApiKey } from '../auth/api-keys';
import { createApp } from '../app';
import { answerClientError } from '../http/client-error';
import type { ServiceContext } from '../context';
import { WhisperModelManager } from '../models/whisper/model-manager';
import { whisperBaseUrl, whisperModelsDir, type WhisperCatalogueEntry } from '../models/whisper/catalogue';
import { DocumentCache } from '../http/document-cache';
import type { TranscriptionEngine } from '../transcription/engine';
import crypto from 'node:crypto';
import { SqlUserStore } from '../storage/user-store';
import { SqlRoleStore } from '../storage/role-store';
import { UserRoles } from '../auth/user-roles';
import { OidcProviderClient } from '../auth/oidc/provider-client';
import { OIDC_TRANSACTION_SECRET } from '../auth/oidc/transaction';
import type { Core } from './core';

export interface HttpOptions {
  /** The Whisper catalogue downloads are checked against (tests serve a stand-in model under a catalogue of their own). */
  whisperCatalogue?: readonly WhisperCatalogueEntry[];
  /** What the ETags start with: new at each start on the desktop; shared by a team's API nodes (`sharedEtagEpoch`). */
  etagEpoch?: string;
  /** The recognizers of a process that transcribes a request itself (the desktop); null where workers do it. */
  transcription: TranscriptionEngine | null;
}

/** What HTTP adds to the core: the context every route is given, and the server that serves the app over it. */
export interface HttpPart {
  context: ServiceContext;
  /** Serves the app on the configured host and port, and says where (for `npm run keys -- signin`). */
  listen(): Promise<HttpServer>;
  /** Closes what HTTP opened besides the server (Whisper downloads in flight). */
  close(): Promise<void>;
}

export interface HttpServer {
  url: string;
  port: number;
  /** Stops taking connections: `closed` settles once the open ones are done, `closeAll` ends them. */
  close(): { closed: Promise<void>; closeAll(): void };
}

export async function buildHttp(core: Core, options: HttpOptions): Promise<HttpPart> {
  const { config, env, layout, files, sql, database, keys, jobs, tools, models, log } = core;
  const { projects, sessions } = database;
  let boundPort = config.port;
  const context: ServiceContext = {
    config,
    layout,
    files,
    database,
    projects,
    sessions,
    projectService: new Projects({ projects, speakers: database.speakers, adaptationOf: (project) => core.adaptation.summaries(project) }),
    keys,
    browserSessions: new SqlBrowserSessionStore(sql),
    users: new SqlUserStore(sql),
    userRoles: new UserRoles({ users: new SqlUserStore(sql), roles: new SqlRoleStore(sql), projects, roleMap: config.roleMap }),
    // Any API node finishes a sign-in another began: the sign-in's cookie is sealed with a key every node reads.
    oidc: config.oidc && {
      provider: new OidcProviderClient(config.oidc),
      transactionKey: await core.secrets.readOrCreate(OIDC_TRANSACTION_SECRET, () => crypto.randomBytes(32)),
    },
    jobs,
    tools,
    models,
    whisperModels: new WhisperModelManager({ dir: whisperModelsDir(config), baseUrl: whisperBaseUrl(env), catalogue: options.whisperCatalogue, team: core.teamWhisper, log }),
    languages: { resolve: (value, loc) => resolveLanguage(value, models.languages(), loc) },
    signIn: new SqlSignInTokens(sql),
    peaks: new PeaksCache(files, sessions, tools),
    recordings: new Recordings({ database, markers: new SqlEditorMarkerStore(sql), jobs, files, speakerMap: (id) => core.speakers.speakerMap(id) }),
    transcription: options.transcription,
    analysis: core.analysis,
    // 16 documents: a 14-min recording's are 200–270 KB, an hour's about 1 MB (≤ ~16 MB at worst).
    documents: new DocumentCache(16, options.etagEpoch),
    transcriptEdits: core.transcriptEdits,
    scriptAlignment: core.scriptAlignment,
    completeTranscript: core.completeTranscript,
    voices: core.voices,
    dubbing: core.dubbing,
    adaptation: core.adaptation,
    afterTranscript: core.afterTranscript,
    speakerNames: (id) => core.speakers.namesFor(id),
    speakerMap: (id) => core.speakers.speakerMap(id),
    audioSecret: core.audioSecret,
    extraKeyHash: config.extraApiKey ? hashApiKey(config.extraApiKey) : null,
    port: () => boundPort,
    log,
    operations: core.operations,
  };
  return {
    context,
    listen: async () => {
      const server = http.createServer(createApp(context));
      // Uploads of long recordings take a while; do not cut them off.
      server.requestTimeout = 0;
      server.keepAliveTimeout = 30_000;
      server.on('clientError', answerClientError);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(config.port, config.host, () => resolve());
      });
      boundPort = (server.address() as AddressInfo).port;
      const url = `http://127.0.0.1:${boundPort}`;
      // Where `npm run keys -- signin` points its fresh link (the port may have been picked at random).
      writeFileAtomic(layout.serviceUrl, `${url}\n`);
      return {
        url,
        port: boundPort,
        close: () => {
          const closed = new Promise<void>((resolve) => server.close(() => resolve())).then(() => fs.rmSync(layout.serviceUrl, { force: true }));
          server.closeIdleConnections();
          return { closed, closeAll: () => server.closeAllConnections() };
        },
      };
    },
    close: () => context.whisperModels.close(),
  };
}
