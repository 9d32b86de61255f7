import type { MeInfo } from '../api/roles';
import { SessionMenu } from '../components/SessionMenu';

/** Signed in, but no admin has given this person a role yet: they may see nothing here until one does. */
export function NoRoleView({ me }: { me: MeInfo }) {
  const who = me.display_name ?? me.user ?? me.key ?? 'you';
  return (
    <main className="page" data-testid="no-role">
      <h1>No access yet</h1>
      <p>
        You are signed in as <strong>{who}</strong>, but you have no role on this Takeline server yet, so there is nothing
        you can open here.
      </p>
      <p>Ask an admin of this server to give you a role: viewer (listen, read, export, leave notes), editor (also correct and revoice) or admin.</p>
      <SessionMenu />
    </main>
  );
}
