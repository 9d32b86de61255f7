/** The studio's call for a revision's stems (`GET …/revisions/{number}/stems`): a zip of WAVs. */

export interface DubStemsApi {
  /** The mix, the background and one WAV per speaker of a revision, in one zip. */
  downloadDubStems(sessionId: string, dubId: string, revision: number): Promise<{ blob: Blob; fileName: string }>;
}

type Download = (path: string, fallbackName: string) => Promise<{ blob: Blob; fileName: string }>;

export function dubStemsApi(download: Download): DubStemsApi {
  const enc = encodeURIComponent;
  return {
    downloadDubStems: (sid, dubId, revision) =>
      download(`/v1/speech/transcriptions/${enc(sid)}/dubs/${enc(dubId)}/revisions/${revision}/stems`, `dub-r${revision}.stems.zip`),
  };
}
