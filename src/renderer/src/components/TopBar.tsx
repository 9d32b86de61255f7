import type { ReactNode } from 'react';
import { SessionMenu } from './SessionMenu';
import { useApp } from '../app-context';

export function TopBar({
  crumbs,
  children,
}: {
  crumbs: { label: string; href?: string }[];
  children?: ReactNode;
}) {
  const { me } = useApp();
  return (
    <header className="topbar">
      <a className="brand" href="#/">
        Takeline
      </a>
      <nav className="crumbs" aria-label="Breadcrumb">
        {crumbs.map((c, i) => (
          <span key={i} className={i === crumbs.length - 1 ? 'current' : undefined}>
            <span aria-hidden> / </span>
            {c.href ? <a href={c.href}>{c.label}</a> : c.label}
          </span>
        ))}
      </nav>
      <div className="spacer" />
      {children}
      {me?.team_role === 'admin' && !me.limited_to_projects && (
        <a className="settings-link" href="#/admin" title="Users and their roles" data-testid="admin-link">
          Admin
        </a>
      )}
      <a className="settings-link" href="#/settings" title="Settings: speech models">
        Settings
      </a>
      <SessionMenu />
    </header>
  );
}
