import type { ReactNode } from 'react';
import { SessionMenu } from './SessionMenu';

export function TopBar({
  crumbs,
  children,
}: {
  crumbs: { label: string; href?: string }[];
  children?: ReactNode;
}) {
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
      <a className="settings-link" href="#/settings" title="Settings: speech models">
        Settings
      </a>
      <SessionMenu />
    </header>
  );
}
