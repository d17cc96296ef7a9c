/// <reference lib="dom" />
// A filter of several values (status, role): the API accepts lists, so the portal offers them; the
// choice travels as "a,b" in the list URL.
import React from 'react';
import { useTranslation, type BasePropertyProps } from 'adminjs';
import { FormGroup, Label, Select } from '@adminjs/design-system';

type Option = { value: string; label: string };

const MultiValueFilter: React.FC<BasePropertyProps> = ({ property, resource, filter, onChange }) => {
  const { translateProperty } = useTranslation();
  const options: Option[] = (property.availableValues ?? []).map((v) => ({
    value: String(v.value),
    label: v.label ?? String(v.value),
  }));
  const chosen = String(filter?.[property.path] ?? '')
    .split(',')
    .filter(Boolean);
  const value = options.filter((o) => chosen.includes(o.value));
  return (
    <FormGroup data-testid={`multi-filter-${property.path}`}>
      <Label>{translateProperty(property.label, resource.id)}</Label>
      <Select
        isMulti
        isClearable
        variant="filter"
        value={value}
        options={options}
        onChange={(selected: readonly Option[] | null) =>
          onChange?.(property.path, (selected ?? []).map((o) => o.value).join(','))
        }
      />
    </FormGroup>
  );
};

export default MultiValueFilter;
