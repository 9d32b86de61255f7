import { Router } from 'express';
import { AuditQuery } from '../../../shared/schemas/audit';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';

/**
 * `GET /v1/admin/audit`: the audit trail, newest first, filtered by user, project, kind and time. Only reads:
 * nothing in Takeline edits or deletes an entry.
 */
export function auditRouter(audit: Pick<ServiceContext['database']['audit'], 'list'>): Router {
  const router = Router();

  router.get('/audit', async (req, res) => {
    // Admins of the whole team only: checked with every other route's role (http/route-roles.ts).
    const query = parseInput(AuditQuery, req.query, 'query');
    const { limit, offset, ...filter } = query;
    const page = await audit.list({ ...filter, limit, offset });
    res.setHeader('Cache-Control', 'no-store');
    res.json({ ...page, limit, offset });
  });

  return router;
}
