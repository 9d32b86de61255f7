/** A file a client sent, spooled whole into the uploads folder before anything reads it. */
export interface UploadedFile {
  field: string;
  /** Temporary path inside the uploads folder; the caller moves or removes it. */
  path: string;
  /** Client-supplied name reduced to its last path segment; display only, never used as a path. */
  fileName: string;
  mimeType: string;
  size: number;
}
