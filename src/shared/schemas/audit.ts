import { z } from 'zod';
import { PageQuery } from './common';

/** What an audit entry records: one kind per event the trail keeps (docs/audit.md lists them). */
export const AUDIT_KINDS = [
  'signin',
  'signin.failed',
  'key.created',
  'key.revoked',
  'key.projects_changed',
  'user.created',
  'user.disabled',
  'user.enabled',
  'role.changed',
  'project.created',
  'project.deleted',
  'recording.created',
  'recording.deleted',
  'recording.exported',
  'transcript.revised',
  'dub.line_edited',
  'dub.line_reviewed',
  'dub.note_added',
  'dub.revoiced',
] as const;
export const AuditKind = z.enum(AUDIT_KINDS).meta({ id: 'AuditKind', description: 'What happened' });
export type AuditKind = z.infer<typeof AuditKind>;

export const AuditActorKind = z
  .enum(['user', 'key', 'desktop', 'console', 'anonymous'])
  .meta({
    description:
      'Who acted: a user (single sign-on, or a key that belongs to a user), a key without a user, the desktop (its studio, the one-time sign-in link or TAKELINE_API_KEY), ' +
      'the command line (`npm run keys`, `npm run users`) or nobody known yet (a failed sign-in)',
  });

export const AuditEntry = z
  .object({
    id: z.string(),
    at: z.string().meta({ description: 'When (ISO 8601, UTC)' }),
    kind: AuditKind,
    actor: z.object({
      kind: AuditActorKind,
      name: z.string().meta({ description: "The name people read: the user's display name, the key's name, \"the desktop\"" }),
      user: z.string().nullable().meta({ description: "The user's name (the handle keys and filters use)" }),
      key_id: z.string().nullable(),
      key_name: z.string().nullable(),
    }),
    address: z.string().nullable().meta({ description: 'The client address the request came from (the connection\'s: behind a proxy, the proxy\'s); null outside HTTP' }),
    project: z
      .object({ id: z.string().nullable(), key: z.string().nullable() })
      .nullable()
      .meta({ description: 'The project the object belongs to (its key as it was then)' }),
    object: z
      .object({ type: z.string(), id: z.string() })
      .nullable()
      .meta({ description: 'What was changed: a recording, a dub line, a key, a user…' }),
    detail: z.record(z.string(), z.unknown()).meta({ description: 'What kind-specific facts the entry keeps (a revision number, a line edit\'s operation, a failure\'s reason)' }),
  })
  .meta({ id: 'AuditEntry' });
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditQuery = PageQuery.extend({
  user: z.string().min(1).max(100).optional().meta({ description: "Only entries of this user (the user's name)" }),
  project: z.string().min(1).max(64).optional().meta({ description: 'Only entries of this project (its key or id)' }),
  kind: AuditKind.optional(),
  since: z.iso.datetime({ offset: true }).optional().meta({ description: 'Entries at or after this time (ISO 8601)' }),
  until: z.iso.datetime({ offset: true }).optional().meta({ description: 'Entries before this time (ISO 8601)' }),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditPage = z
  .object({ data: z.array(AuditEntry), total: z.number().int(), limit: z.number().int(), offset: z.number().int() })
  .meta({ id: 'AuditPage', description: 'Audit entries, newest first' });
