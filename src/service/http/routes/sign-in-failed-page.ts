const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A page a person reads when single sign-on did not sign them in: why, and the ways on. */
export function signInFailedPage(reason: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign-in failed · Takeline</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem">
<h1>Sign-in failed</h1>
<p id="reason">${escape(reason)}</p>
<p><a href="/auth/oidc/login">Sign in again</a> · <a href="/">Back to the studio</a></p>
</body></html>
`;
}
