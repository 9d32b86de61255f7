import type { ServiceConfig } from './config';
import type { SpeakerAdaptation } from './speakers/speaker-adaptation';
import type { Database } from './storage/stores';
import type { DataLayout } from './storage/files';
import type { ProjectStore } from './storage/project-store';
import type { SessionStore } from './storage/session-store';
import type { KeyStore } from './storage/key-store';
import type { BrowserSessionStore } from './storage/browser-sessions';
import type { JobRunner } from './jobs/job-runner';
import type { MediaTools } from './media/tools';
import type { ModelRegistry } from './models/registry';
import type { SignInTokens } from './storage/sign-in-tokens';
import type { PeaksCache } from './recordings/peaks-cache';
import type { Recordings } from './recordings/recordings';
import type { Projects } from './projects/projects';
import type { TranscriptionEngine } from './transcription/engine';
import type { SpeakerMapEntry } from './speakers/speaker-directory';
import type { AnalysisService } from './analysis/analysis-service';
import type { Transcript } from './speech/types';
import type { VoiceRegistry } from './speech/synthesis/voice-registry';
import type { Dubbing } from './dubbing/dubbing';
import type { WhisperModelManager } from './models/whisper/model-manager';
import type { TranscriptEditor } from './transcription/transcript-edits';
import type { ScriptAlignment } from './transcription/script-align';
import type { DocumentCache } from './http/document-cache';
import type { StoredFiles } from './storage/stored-files';
import type { OperationsDeps } from './metrics/operations-routes';
import type { UserStore } from './storage/user-store';
import type { OidcProviderClient } from './auth/oidc/provider-client';
import type { UserRoles } from './auth/user-roles';

/** Everything a request handler may use, built once by the HTTP part of the assembly (assembly/http.ts). */
export interface ServiceContext {
  config: ServiceConfig;
  layout: DataLayout;
  // ---- files on the blob store ----
  /** Recordings' originals and derived files in the blob store (the data folder itself unless TAKELINE_STORAGE_URL is set). */
  files: StoredFiles;
  // ---- end of files on the blob store ----
  /** The stores (projects, sessions, revisions, speakers), with transactions across them. */
  database: Database;
  projects: ProjectStore;
  /** Projects as the team manages them (`/v1/speech/projects`): created, listed, their vocabulary and speakers. */
  projectService: Projects;
  sessions: SessionStore;
  keys: KeyStore;
  browserSessions: BrowserSessionStore;
  /** People signed in by single sign-on (the identity columns of `users`). */
  users: UserStore;
  /** Users' roles, as admins give and list them. */
  userRoles: UserRoles;
  /** Single sign-on, when configured (TAKELINE_OIDC_*): the provider, and the key sealing sign-in transactions. */
  oidc: { provider: OidcProviderClient; transactionKey: Buffer } | null;
  jobs: JobRunner;
  tools: MediaTools;
  models: ModelRegistry;
  /** Whisper model catalogue and downloads. */
  whisperModels: WhisperModelManager;
  languages: { resolve(value: string | undefined, loc: Array<string | number>): string };
  signIn: SignInTokens;
  peaks: PeaksCache;
  /** A recording's use cases: finding, listing, deleting it, retrying its transcription, its timebase and markers. */
  recordings: Recordings;
  /** The recognizers of a process that transcribes a request itself (the desktop); null on a team's API node, whose workers do. */
  transcription: TranscriptionEngine | null;
  analysis: AnalysisService;
  /** Encoded session and analysis documents by ETag, for the polled GETs. */
  documents: DocumentCache;
  /** Speaker fixes by hand, stored as transcript revisions. */
  transcriptEdits: TranscriptEditor;
  /** A script aligned to the recording, replacing the recognized words (`POST …/transcript/align`). */
  scriptAlignment: ScriptAlignment;
  /** Stores a finished transcript and queues its analysis, in one transaction. */
  completeTranscript(sessionId: string, transcript: Transcript): Promise<void>;
  /** Text-to-speech engines (`/v1/audio/speech`, dub revoicing). */
  voices: VoiceRegistry;
  /** Dubs, their lines, revisions and revoices. */
  dubbing: Dubbing;
  /** Per project speaker acoustic transforms, estimated after each recording. */
  adaptation: SpeakerAdaptation;
  /** Files a finished transcript's speakers into the project's known speakers. */
  afterTranscript(sessionId: string): Promise<void>;
  /** Display names of a session's speakers (S1 → the project speaker's name). */
  speakerNames(sessionId: string): Promise<Record<string, string>>;
  speakerMap(sessionId: string): Promise<Record<string, SpeakerMapEntry>>;
  audioSecret: Buffer;
  extraKeyHash: Buffer | null;
  /** The port actually bound (known once listening). */
  port(): number;
  log(line: string): void;
  /** `/metrics` and `/readyz`: the process's metrics, the readiness checks, and who may scrape. */
  operations: OperationsDeps;
}
