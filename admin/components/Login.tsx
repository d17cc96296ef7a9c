/// <reference lib="dom" />
// The portal's login: e-mail, password and the current one-time code (required once MFA is enabled).
// A refused login renders this page again from the server, which does not echo the e-mail back; the
// form keeps it in this tab's sessionStorage when submitted, so a typo in the password or code does not
// mean typing the address again. The password and code are never kept.
import React from 'react';
import { Box, Button, FormGroup, H2, Input, Label, MessageBox, Text } from '@adminjs/design-system';

declare global {
  interface Window {
    __APP_STATE__: { action: string; errorMessage?: string | null };
  }
}

const EMAIL_KEY = 'guildhall.admin.login.email';

function rememberedEmail(): string {
  try {
    return window.sessionStorage.getItem(EMAIL_KEY) ?? '';
  } catch {
    return ''; // storage disabled: the form just starts empty
  }
}

function rememberEmail(form: HTMLFormElement): void {
  const email = (form.elements.namedItem('email') as HTMLInputElement | null)?.value ?? '';
  try {
    window.sessionStorage.setItem(EMAIL_KEY, email);
  } catch {
    // storage disabled: nothing to keep
  }
}

const Login: React.FC = () => {
  const { action, errorMessage } = window.__APP_STATE__;
  // only after a refusal: a fresh visit starts with an empty form
  const email = errorMessage ? rememberedEmail() : '';
  return (
    <Box flex flexGrow={1} justifyContent="center" alignItems="center" variant="grey" style={{ minHeight: '100vh' }}>
      <Box
        as="form"
        action={action}
        method="POST"
        onSubmit={(event: React.FormEvent<HTMLFormElement>) => rememberEmail(event.currentTarget)}
        bg="white"
        p="xxl"
        width={['100%', '420px']}
        boxShadow="login"
      >
        <H2>Guildhall Admin Portal</H2>
        <Text mb="xl">Platform administrators only.</Text>
        {errorMessage && (
          <MessageBox
            my="lg"
            message={errorMessage === 'invalidCredentials' ? 'E-mail, password or code is incorrect' : errorMessage}
            variant="danger"
          />
        )}
        <FormGroup>
          <Label required htmlFor="email">
            E-mail
          </Label>
          <Input
            id="email"
            name="email"
            type="email"
            autoComplete="username"
            width="100%"
            defaultValue={email}
            autoFocus={!email}
          />
        </FormGroup>
        <FormGroup>
          <Label required htmlFor="password">
            Password
          </Label>
          <Input
            id="password"
            name="password"
            type="password"
            autoComplete="current-password"
            width="100%"
            autoFocus={Boolean(email)}
          />
        </FormGroup>
        <FormGroup>
          <Label htmlFor="otp">One-time code</Label>
          <Input id="otp" name="otp" inputMode="numeric" pattern="[0-9]{6}" autoComplete="one-time-code" width="100%" />
        </FormGroup>
        <Button variant="contained" type="submit" width="100%">
          Log in
        </Button>
      </Box>
    </Box>
  );
};

export default Login;
