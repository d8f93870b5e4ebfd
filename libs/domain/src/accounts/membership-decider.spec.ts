import { DomainError } from '../errors';
import { MemberView, decideAddMember, decideRemoveMember, scopesOfRole } from './membership-decider';

const owner: MemberView = { user_id: 'o1', role: 'owner' };
const owner2: MemberView = { user_id: 'o2', role: 'owner' };
const admin: MemberView = { user_id: 'a1', role: 'admin' };
const member: MemberView = { user_id: 'm1', role: 'member' };
const viewer: MemberView = { user_id: 'v1', role: 'viewer' };

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as DomainError).code;
  }
  return undefined;
}

describe('decideAddMember', () => {
  const team = [owner, admin, member, viewer];
  it('owners add any role, including owner', () => {
    expect(decideAddMember(team, owner, 'new', 'owner')).toEqual({ kind: 'add', role: 'owner' });
    expect(decideAddMember(team, owner, 'new', 'viewer')).toEqual({ kind: 'add', role: 'viewer' });
  });
  it('admins add admins, members and viewers but not owners', () => {
    expect(decideAddMember(team, admin, 'new', 'admin')).toEqual({ kind: 'add', role: 'admin' });
    expect(decideAddMember(team, admin, 'new', 'member')).toEqual({ kind: 'add', role: 'member' });
    expect(() => decideAddMember(team, admin, 'new', 'owner')).toThrow(expect.objectContaining({ code: 'insufficient_role', context: { required_role: 'owner' } }));
  });
  it('members and viewers cannot add anyone', () => {
    expect(code(() => decideAddMember(team, member, 'new', 'viewer'))).toBe('insufficient_role');
    expect(code(() => decideAddMember(team, viewer, 'new', 'viewer'))).toBe('insufficient_role');
  });
  it('an existing member with the same role is unchanged; another role is a role change', () => {
    expect(decideAddMember(team, admin, 'm1', 'member')).toEqual({ kind: 'unchanged' });
    expect(decideAddMember(team, admin, 'm1', 'viewer')).toEqual({ kind: 'change_role', from: 'member', to: 'viewer' });
  });
  it('only owners make owners or change an owner', () => {
    expect(code(() => decideAddMember(team, admin, 'm1', 'owner'))).toBe('insufficient_role');
    expect(code(() => decideAddMember([owner, owner2, admin], admin, 'o2', 'member'))).toBe('insufficient_role');
    expect(decideAddMember([owner, owner2], owner, 'o2', 'admin')).toEqual({ kind: 'change_role', from: 'owner', to: 'admin' });
  });
  it('the last owner cannot be demoted', () => {
    expect(code(() => decideAddMember([owner, admin], owner, 'o1', 'admin'))).toBe('forbidden');
  });
});

describe('decideRemoveMember', () => {
  it('owners remove anyone but the last owner', () => {
    expect(decideRemoveMember([owner, admin], owner, 'a1')).toBe(true);
    expect(decideRemoveMember([owner, owner2], owner, 'o2')).toBe(true);
    expect(code(() => decideRemoveMember([owner, admin], owner, 'o1'))).toBe('forbidden');
  });
  it('admins remove members, viewers and admins, never owners', () => {
    expect(decideRemoveMember([owner, admin, member], admin, 'm1')).toBe(true);
    expect(decideRemoveMember([owner, admin, { user_id: 'a2', role: 'admin' }], admin, 'a2')).toBe(true);
    expect(() => decideRemoveMember([owner, owner2, admin], admin, 'o1')).toThrow(expect.objectContaining({ code: 'insufficient_role', context: { required_role: 'owner' } }));
  });
  it('members and viewers cannot remove others but may leave', () => {
    expect(code(() => decideRemoveMember([owner, member, viewer], member, 'v1'))).toBe('insufficient_role');
    expect(decideRemoveMember([owner, member, viewer], viewer, 'v1')).toBe(true);
  });
  it('the last owner cannot leave; one of two owners can', () => {
    expect(code(() => decideRemoveMember([owner, member], owner, 'o1'))).toBe('forbidden');
    expect(decideRemoveMember([owner, owner2], owner, 'o1')).toBe(true);
  });
  it('removing a non-member is a no-op for admins', () => {
    expect(decideRemoveMember([owner], owner, 'ghost')).toBe(false);
  });
});

describe('scopesOfRole', () => {
  it('viewers are read-only', () => {
    expect(scopesOfRole('viewer')).toEqual(['read']);
    expect(scopesOfRole('member')).toEqual(['read', 'write']);
  });
});
