import type { Readable } from 'node:stream';
import { ConflictError } from '../../errors';
import type { LocalCopy } from '../../storage/blobs/local-copies';
import type { DubRecord, DubStore, RevisionRecord } from '../../storage/dub-store';
import { dubKeys, type DubFiles } from '../dub-files';
import { stemPlan } from './stem-plan';
import { stemsZip } from './stems-zip';

export interface RevisionStems {
  stream: Readable;
  /** The zip's exact length in bytes. */
  size: number;
  /** Lets the local copies go; call once the stream has ended or been abandoned. */
  release(): Promise<void>;
}

/**
 * A revision's stems (stems-zip.ts) from its stored files: the revision and, when the dub has one, its
 * music-and-effects stem, read from local copies held until `release`. Speakers' regions come from the dub's
 * lines as they are now, widened to the regions this revision's revoices and takes wrote.
 */
export async function revisionStems(
  files: DubFiles,
  store: DubStore,
  dub: DubRecord,
  revision: RevisionRecord,
  speakerNames: Record<string, string>,
): Promise<RevisionStems> {
  if (dub.status === 'preparing' && dub.source === 'recording') {
    throw new ConflictError("The dub's audio is still being converted from the recording; its stems follow once it is ready.");
  }
  const lines = await store.lines(dub.id);
  const copies: LocalCopy[] = [];
  const release = async () => {
    await Promise.all(copies.splice(0).map((c) => c.release()));
  };
  try {
    const mix = await files.local(dubKeys.revision(dub.sessionId, dub.id, revision.fileName));
    copies.push(mix);
    const background = dub.background ? await files.local(dubKeys.background(dub.sessionId, dub.id)) : null;
    if (background) copies.push(background);
    const plan = stemPlan(lines, revision.renders, dub.sampleRate, dub.frames, speakerNames);
    const zip = stemsZip({ mixFile: mix.path, backgroundFile: background?.path ?? null, plan, mtime: new Date(revision.createdAt) });
    return { stream: zip.stream, size: await zip.size, release };
  } catch (error) {
    await release();
    throw error;
  }
}
