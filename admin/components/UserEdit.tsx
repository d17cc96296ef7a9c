/// <reference lib="dom" />
// Separate forms for a new user and an existing one (AdminJS has one): the initial password only on
// new, the "Confirm raising the role" box only on edit (not on one's own). A refusal of the service that names no field
// stays on the form as an error box above the fields, next to the red notice.
import React, { useEffect } from 'react';
import { useNavigate } from 'react-router';
import { BasePropertyComponent, useCurrentAdmin, useRecord, type ActionProps } from 'adminjs';
import { Box, Button, DrawerContent, DrawerFooter, H3, MessageBox } from '@adminjs/design-system';

const NEW_ONLY = ['password', 'generatePassword'];
const EDIT_ONLY = ['confirmPrivilegeChange'];

const UserEdit: React.FC<ActionProps> = (props) => {
  const { record: initialRecord, resource, action } = props;
  const { record, handleChange, submit, loading, setRecord } = useRecord(initialRecord, resource.id);
  const navigate = useNavigate();
  useEffect(() => {
    if (initialRecord) setRecord(initialRecord);
  }, [initialRecord]);
  const [currentAdmin] = useCurrentAdmin();
  const isNew = action.name === 'new';
  // on one's own page Role is disabled: there is no raise to confirm
  const own = !isNew && initialRecord?.id === currentAdmin?.id;
  const hidden = isNew ? EDIT_ONLY : own ? [...NEW_ONLY, ...EDIT_ONLY] : NEW_ONLY;
  const properties = resource.editProperties.filter((p) => !hidden.includes(p.propertyPath));
  const formError = record?.errors?.form?.message;

  const onSubmit = (event: React.FormEvent) => {
    event.preventDefault();
    submit().then((response) => {
      const redirectUrl = (response.data as { redirectUrl?: string }).redirectUrl;
      if (redirectUrl) navigate(redirectUrl);
    });
    return false;
  };

  return (
    <Box as="form" onSubmit={onSubmit} flex flexDirection="column" data-css={`users-${action.name}-form`}>
      <DrawerContent>
        {!isNew && initialRecord && (
          <H3 data-testid="user-title" mb="lg">
            {String(initialRecord.params.name ?? '')}
          </H3>
        )}
        {formError && <MessageBox data-testid="form-error" mb="xl" variant="danger" message={formError} />}
        {properties.map((property) => (
          <BasePropertyComponent
            key={property.propertyPath}
            where="edit"
            onChange={handleChange}
            property={property}
            resource={resource}
            record={record}
          />
        ))}
      </DrawerContent>
      <DrawerFooter>
        <Button variant="contained" type="submit" data-testid="button-save" disabled={loading}>
          {isNew ? 'Create user' : 'Save changes'}
        </Button>
      </DrawerFooter>
    </Box>
  );
};

export default UserEdit;
