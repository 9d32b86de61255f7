/** Hash routes, so the studio works from the service's `/` and from a file:// page in Electron. */
export type Route =
  | { name: 'projects' }
  | { name: 'project'; key: string }
  | { name: 'recording'; id: string }
  | { name: 'dub'; sessionId: string; dubId: string }
  | { name: 'settings' }
  | { name: 'admin' };

export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, '').replace(/^\/+/, '');
  const [head, arg, sub, subArg] = path.split('/').map((p) => decodeURIComponent(p));
  if (head === 'projects' && arg) return { name: 'project', key: arg };
  if (head === 'recordings' && arg && sub === 'dubs' && subArg) return { name: 'dub', sessionId: arg, dubId: subArg };
  if (head === 'recordings' && arg) return { name: 'recording', id: arg };
  if (head === 'settings') return { name: 'settings' };
  if (head === 'admin') return { name: 'admin' };
  return { name: 'projects' };
}

export function routeHash(route: Route): string {
  switch (route.name) {
    case 'project':
      return `#/projects/${encodeURIComponent(route.key)}`;
    case 'recording':
      return `#/recordings/${encodeURIComponent(route.id)}`;
    case 'dub':
      return `#/recordings/${encodeURIComponent(route.sessionId)}/dubs/${encodeURIComponent(route.dubId)}`;
    case 'settings':
      return '#/settings';
    case 'admin':
      return '#/admin';
    default:
      return '#/';
  }
}
