import { z } from 'zod';

export const RoleName = z.enum(['viewer', 'editor', 'admin']).meta({
  id: 'Role',
  description: 'viewer: read, play, export, leave notes; editor: also correct transcripts, edit and revoice dubs, set timebases, upload and transcribe; admin: also projects, users and models',
});

export const ProjectRole = z
  .object({
    project_id: z.string(),
    project_key: z.string(),
    role: RoleName,
  })
  .meta({ id: 'ProjectRole' });

/** Who the caller is and what they may do (the studio shows and hides its controls by it). */
export const Me = z
  .object({
    user: z.string().nullable().meta({ description: "The user's name; null for the desktop, the service's own key and keys of no user" }),
    display_name: z.string().nullable(),
    key: z.string().nullable().meta({ description: "The API key's name, when the caller used one" }),
    team_role: RoleName.nullable().meta({ description: 'The role for the whole team (null: none)' }),
    projects: z.array(ProjectRole).meta({ description: 'Roles on single projects (above the team role there)' }),
    limited_to_projects: z.boolean().meta({ description: 'Whether the caller sees only some projects (a key limited to projects, or roles on some projects only)' }),
  })
  .meta({ id: 'Me' });

export const AdminUser = z
  .object({
    id: z.string(),
    name: z.string(),
    display_name: z.string().nullable(),
    email: z.string().nullable(),
    disabled: z.boolean(),
    single_sign_on: z.boolean().meta({ description: "Linked to the provider (signs in by single sign-on); false: made as a keys' owner" }),
    groups: z.array(z.string()).meta({ description: "The provider's groups at the last sign-in" }),
    created_at: z.string(),
    last_sign_in_at: z.string().nullable(),
    team_role: RoleName.nullable().meta({ description: 'The role an admin gave for the whole team' }),
    group_role: RoleName.nullable().meta({ description: 'The role TAKELINE_OIDC_ROLE_MAP gives for their groups (the higher of the two holds)' }),
    projects: z.array(ProjectRole),
  })
  .meta({ id: 'AdminUser' });

export const AdminUserList = z.object({ data: z.array(AdminUser) }).meta({ id: 'AdminUserList' });

export const RolesUpdate = z
  .object({
    team: RoleName.nullable().meta({ description: 'The role for the whole team; null: none' }),
    projects: z
      .array(z.object({ project: z.string().min(1).max(64).meta({ description: 'Project key or id' }), role: RoleName }).strict())
      .max(1000)
      .default([]),
  })
  .strict()
  .meta({ id: 'RolesUpdate', description: "Replaces all of the user's roles" });
