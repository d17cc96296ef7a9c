// "Not blank" is one rule: the contract's pattern on every name field, the problem's wording of it and
// the users service's own check (the portal's forms reach it without the contract).
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { checkUserFields } from '../../src/modules/users/user-fields.ts';
import { NOT_BLANK, NOT_BLANK_PATTERN } from '../../src/shared/not-blank.ts';

describe('not blank', () => {
  it('when a text is spaces or invisible marks only, then it is blank; one visible character is enough', () => {
    for (const blank of ['', ' ', '\t\n', '\u00a0', '\u200b', '\u200b\u00ad\u2060', '\ufeff', '\u3164'])
      assert.equal(NOT_BLANK.test(blank), false, JSON.stringify(blank));
    for (const name of ['A', ' Zoë ', '李', '\u200bA', '-', 'e\u0301']) assert.equal(NOT_BLANK.test(name), true, name);
  });

  it("when the contract says a name must not be blank, then it writes the service's pattern", async () => {
    const contract = await readFile(new URL('../../openapi.yaml', import.meta.url), 'utf8');
    // every pattern about spaces: the old '\S' or the rule
    const patterns = [...contract.matchAll(/pattern: '((?:\\S|\[\^\\s)[^']*)'/g)].map((m) => m[1]);
    assert.ok(patterns.length >= 20, `${patterns.length} name fields`);
    for (const pattern of patterns) assert.equal(pattern, NOT_BLANK_PATTERN);
  });

  it("when the portal's form names a user with a zero-width space, then the users service refuses it", () => {
    assert.throws(
      () =>
        checkUserFields(
          { firstName: '\u200b', lastName: 'Ng', email: 'ng@example.test', role: 'ROLE_MEMBER' },
          'create',
        ),
      (error: { extras?: { errors?: Array<{ field: string; message: string }> } }) =>
        error.extras?.errors?.some((e) => e.field === 'firstName' && e.message === 'must not be blank') === true,
    );
  });
});
