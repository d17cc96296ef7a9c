// Pure logic of the SCIM server: the filter grammar, its SQL (values always parameters) and PatchOp
// on a resource's JSON as Entra ID and Okta write it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFilter } from '../../src/modules/directory/scim/scim-filter.ts';
import { filterToSql } from '../../src/modules/directory/scim/scim-filter.sql.ts';
import { planGroupPatch } from '../../src/modules/directory/scim/scim-group-patch.ts';
import { applyPatch, parsePatchOp } from '../../src/modules/directory/scim/scim-patch.ts';
import { USER_ATTRIBUTES } from '../../src/modules/directory/scim/scim-repository.ts';

const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const sql = (filter: string) => {
  const params: unknown[] = ['directory'];
  return { text: filterToSql(parseFilter(filter), USER_ATTRIBUTES, params), params };
};

describe('SCIM filters', () => {
  it('when and, or and not mix, then not binds tightest and and binds tighter than or', () => {
    const tree = parseFilter('userName eq "a" or userName eq "b" and not (active eq false)');
    assert.equal(tree.kind, 'or');
    assert.equal(tree.kind === 'or' && tree.right.kind, 'and');
  });

  it('when a filter names values, then they are parameters and never part of the SQL text', () => {
    const { text, params } = sql(`userName eq "x' OR 1=1 --" and emails[type eq "work"].value co "100%"`);
    assert.ok(!text.includes('OR 1=1'));
    assert.deepEqual(params, ['directory', "x' or 1=1 --", 'work', '%100\\%%']);
    assert.match(text, /lower\(u\.user_name\) = \$2/);
  });

  it('when operators and attribute names are capitalised, then they mean the same', () => {
    assert.deepEqual(sql('UserName EQ "A"'), sql('userName eq "A"'));
    assert.deepEqual(sql(`${ENTERPRISE}:Department eq "x"`).params, ['directory', 'x']);
  });

  it('when a filter is malformed, then parsing says where', () => {
    for (const bad of ['', 'userName', 'userName eq "a" userName', 'not userName eq "a"', 'emails[type eq "w"'])
      assert.throws(() => parseFilter(bad));
  });
});

describe('SCIM PATCH', () => {
  const user = {
    userName: 'ada@example.test',
    name: { givenName: 'Ada', familyName: 'Lovelace' },
    emails: [{ type: 'work', value: 'ada@example.test', primary: true }],
    active: true,
  };

  it('when Entra sends capitalised ops with filtered and extension paths, then each lands where it names', () => {
    const patched = applyPatch(
      user,
      parsePatchOp({
        Operations: [
          { op: 'Replace', path: 'emails[type eq "work"].value', value: 'new@example.test' },
          { op: 'Add', path: 'phoneNumbers[type eq "mobile"].value', value: '+44 20 0000' },
          { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Finance' },
          { op: 'Replace', path: 'NAME.GIVENNAME', value: 'Augusta' },
          { op: 'Replace', path: 'active', value: 'False' },
        ],
      }),
      ['id', 'meta', 'groups'],
    );
    assert.deepEqual(patched.emails, [{ type: 'work', value: 'new@example.test', primary: true }]);
    assert.deepEqual(patched.phoneNumbers, [{ type: 'mobile', value: '+44 20 0000' }]);
    assert.deepEqual(patched[ENTERPRISE], { department: 'Finance' });
    assert.deepEqual(patched.name, { givenName: 'Augusta', familyName: 'Lovelace' });
    assert.equal(patched.active, 'False', 'the mapper reads string booleans');
    assert.equal(user.name.givenName, 'Ada', 'the original is untouched');
  });

  it('when a no-path value object carries paths as keys, then each is applied as its path', () => {
    const patched = applyPatch(
      user,
      parsePatchOp({ Operations: [{ op: 'replace', value: { active: false, 'name.familyName': 'Byron' } }] }),
      [],
    );
    assert.equal(patched.active, false);
    assert.deepEqual(patched.name, { givenName: 'Ada', familyName: 'Byron' });
  });

  it('when group operations add, remove and replace members, then the plan keeps their order', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((x) => `0000000${x}-0000-4000-8000-000000000000`);
    const plan = planGroupPatch(
      parsePatchOp({
        Operations: [
          { op: 'Add', path: 'members', value: [{ value: a }, { value: b }] },
          { op: 'remove', path: `members[value eq "${a}" or value eq "${c}"]` },
          { op: 'replace', value: { id: 'ignored', displayName: 'Board' } },
        ],
      }),
    );
    assert.deepEqual([...plan.add], [b]);
    assert.deepEqual([...plan.remove], [a, c]);
    assert.equal(plan.displayName, 'Board');
    assert.equal(plan.replace, null);
    const replaced = planGroupPatch(
      parsePatchOp({
        Operations: [
          { op: 'remove', path: 'members' },
          { op: 'add', path: 'members', value: { value: c } },
        ],
      }),
    );
    assert.deepEqual([...replaced.replace!], [c]);
  });
});
