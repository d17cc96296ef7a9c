/// <reference lib="dom" />
// Role and status on the user form: the admin's own are shown but disabled, with why (the service
// refuses changing one's own role or status); everyone else's are AdminJS's usual select.
import React from 'react';
import { BasePropertyComponent, useCurrentAdmin, useTranslation, type BasePropertyProps } from 'adminjs';
import { FormGroup, FormMessage, Input, Label } from '@adminjs/design-system';

const UserFormField: React.FC<BasePropertyProps> = (props) => {
  const { property, record, resource } = props;
  const { translateProperty } = useTranslation();
  const [admin] = useCurrentAdmin();
  const own = Boolean(record?.id) && record?.id === (admin as { id?: string } | null)?.id;
  const error = record?.errors?.[property.path]?.message;
  if (own) {
    const value = String(record?.params?.[property.path] ?? '');
    const label = property.availableValues?.find((v) => v.value === value)?.label ?? value;
    return (
      <FormGroup data-testid={`own-${property.path}`}>
        <Label htmlFor={property.path}>{translateProperty(property.label, resource.id)}</Label>
        <Input id={property.path} name={property.path} value={label} disabled width="100%" />
        <FormMessage style={{ color: '#454655' }}>
          You cannot change your own {property.path}: another platform admin must do it.
        </FormMessage>
        {error && <FormMessage>{error}</FormMessage>}
      </FormGroup>
    );
  }
  // the usual input for this property type (without this component, so it does not render itself)
  return <BasePropertyComponent {...props} property={{ ...property, components: undefined }} />;
};

export default UserFormField;
