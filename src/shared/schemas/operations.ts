import { z } from 'zod';

/** One dependency's answer to the readiness check (`GET /readyz`). */
export const ReadinessCheck = z.object({
  status: z.enum(['ok', 'failed']),
  ms: z.number().meta({ description: 'How long it took to answer or to fail, in milliseconds' }),
  error: z.string().optional().meta({ description: 'Why it failed: an error code (ECONNREFUSED, 57P03…) or a short reason; the node’s log has the whole message' }),
});

/** `GET /readyz`: whether this node can serve (its database and its storage answer). */
export const Readiness = z.object({
  status: z.enum(['ready', 'unavailable']),
  failed: z.array(z.string()).meta({ description: 'The checks that failed: `database`, `storage`' }),
  checks: z.record(z.string(), ReadinessCheck),
});
