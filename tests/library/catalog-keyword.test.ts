// Pure parts of the library search: the keyword's words and tsquery, and the query-string grammar.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AppError } from '../../src/shared/errors.ts';
import { keywordWords, parseCatalogQuery } from '../../src/modules/resource-catalog/catalog.filters.ts';
import { keywordTsQuery } from '../../src/modules/resource-catalog/catalog-search.repository.ts';

describe('library keyword and filters', () => {
  it('when a keyword holds tsquery syntax, then only letters and digits survive as words', () => {
    assert.deepEqual(keywordWords("Annual & report | !(2025):* l'été"), ['annual', 'report', '2025', 'l', 'été']);
    assert.deepEqual(keywordWords('&|!:*()'), []);
  });

  it('when words are known, then they are ANDed with the last as a prefix; unknown ones are widened', () => {
    assert.equal(
      keywordTsQuery([
        { word: 'annual', known: true, similar: ['annuals'] },
        { word: 'rep', known: true, similar: [] },
      ]),
      'annual & rep:*',
    );
    assert.equal(
      keywordTsQuery([
        { word: 'anual', known: false, similar: ['annual', 'manual'] },
        { word: 'reprot', known: false, similar: ['report'] },
      ]),
      '(anual | annual | manual) & (reprot:* | report)',
    );
    assert.equal(keywordTsQuery([{ word: 'zzz', known: false, similar: ['bad term'] }]), 'zzz:*');
  });

  it('when the query string is parsed, then q, sort and the filters come out, a label mapped to every stored level it names', () => {
    const query = parseCatalogQuery({
      q: '  Annual Report ',
      accessLevel: ['Fully Gated', 'paid'],
      type: 'video',
      publishedAt: { after: '2026-01-01' },
      tag: ['a'],
    });
    assert.equal(query.text, 'annual report');
    assert.deepEqual(query.words, ['annual', 'report']);
    assert.equal(query.sort, 'relevance');
    assert.deepEqual(query.accessLevels, ['members', 'premium', 'paid']);
    assert.deepEqual(parseCatalogQuery({ accessLevel: ['member', 'preview'] }).accessLevels, ['preview', 'members']);
    assert.deepEqual(parseCatalogQuery({ accessLevel: 'partially_gated' }).accessLevels, ['preview']);
    assert.deepEqual(parseCatalogQuery({ accessLevel: 'Members' }).accessLevels, ['members']);
    assert.deepEqual(query.types, ['video']);
    assert.deepEqual(query.publishedAt, [
      { field: 'publishedAt', kind: 'compare', op: 'gte', value: '2026-01-01T00:00:00.000Z' },
    ]);
    assert.equal(parseCatalogQuery({}).sort, 'newest');
    assert.throws(
      () => parseCatalogQuery({ accessLevel: 'gold' }),
      (error: AppError) => error.code === 'invalid_filter',
    );
    assert.throws(
      () => parseCatalogQuery({ colour: 'red' }),
      (error: AppError) => error.code === 'invalid_filter',
    );
  });
});
