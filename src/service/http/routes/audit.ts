import { Router } from 'express';
import { AuditQuery } from '../../../shared/schemas/audit';
import type { AuditStore } from '../../storage/audit-store';
import { isUnlimited } from '../../auth/access';
import { parseInput } from '../../validation';
import { accessOf } from '../authenticate';
import { HttpError } from '../errors';

/**
 * `GET /v1/admin/audit`: the audit trail, newest first, filtered by user, project, kind and time. Only reads:
 * nothing in Takeline edits or deletes an entry.
 */
export function auditRouter(audit: AuditStore): Router {
  const router = Router();

  router.get('/audit', async (req, res) => {
    // Admins only. Until roles exist, the strongest check there is: a caller that sees every project.
    if (!isUnlimited(accessOf(res))) throw new HttpError(403, 'The audit trail is for admins; this key is limited to some projects.', { code: 'permission_denied' });
    const query = parseInput(AuditQuery, req.query, 'query');
    const { limit, offset, ...filter } = query;
    const page = await audit.list({ ...filter, limit, offset });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...page, limit, offset });
  });

  return router;
}
