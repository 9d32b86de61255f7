import { z } from 'zod';
import {
  IpcChannel,
  type FileFilter,
  type IpcArgs,
  type IpcChannelName,
  type OpenFileOptions,
} from '../shared/ipc';

const MAX_PATH_LENGTH = 4096;

export const fileFilterSchema = z.strictObject({
  name: z.string().min(1).max(200),
  extensions: z
    .array(z.string().regex(/^(\*|[A-Za-z0-9_-]{1,16})$/))
    .min(1)
    .max(64),
}) satisfies z.ZodType<FileFilter>;

export const openFileOptionsSchema = z.strictObject({
  title: z.string().max(200).optional(),
  filters: z.array(fileFilterSchema).max(32).optional(),
  multiple: z.boolean().optional(),
  defaultPath: z.string().max(MAX_PATH_LENGTH).optional(),
}) satisfies z.ZodType<OpenFileOptions>;

export const localPathSchema = z
  .string()
  .min(1)
  .max(MAX_PATH_LENGTH)
  .refine((value) => !value.includes('\0'), 'path must not contain NUL');

/**
 * Argument tuples the main process accepts, one schema per channel of the shared contract; the mapped type makes
 * the compiler reject a schema whose output drifts from the contract's argument types.
 */
export const ipcArgumentSchemas: { [C in IpcChannelName]: z.ZodType<IpcArgs<C>> } = {
  [IpcChannel.apiKey]: z.tuple([]),
  [IpcChannel.openFile]: z.union([z.tuple([]), z.tuple([openFileOptionsSchema])]),
  [IpcChannel.revealInFolder]: z.tuple([localPathSchema]),
};
