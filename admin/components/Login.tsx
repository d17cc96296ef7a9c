/// <reference lib="dom" />
// The portal's login: e-mail, password and the current one-time code (required once MFA is enabled).
import React from 'react';
import { Box, Button, FormGroup, H2, Input, Label, MessageBox, Text } from '@adminjs/design-system';

declare global {
  interface Window {
    __APP_STATE__: { action: string; errorMessage?: string | null };
  }
}

const Login: React.FC = () => {
  const { action, errorMessage } = window.__APP_STATE__;
  return (
    <Box flex flexGrow={1} justifyContent="center" alignItems="center" variant="grey" style={{ minHeight: '100vh' }}>
      <Box as="form" action={action} method="POST" bg="white" p="xxl" width={['100%', '420px']} boxShadow="login">
        <H2>Guildhall Admin Portal</H2>
        <Text mb="xl">Platform administrators only.</Text>
        {errorMessage && <MessageBox my="lg" message={errorMessage === 'invalidCredentials' ? 'E-mail, password or code is incorrect' : errorMessage} variant="danger" />}
        <FormGroup>
          <Label required htmlFor="email">E-mail</Label>
          <Input id="email" name="email" type="email" autoComplete="username" width="100%" />
        </FormGroup>
        <FormGroup>
          <Label required htmlFor="password">Password</Label>
          <Input id="password" name="password" type="password" autoComplete="current-password" width="100%" />
        </FormGroup>
        <FormGroup>
          <Label htmlFor="otp">One-time code</Label>
          <Input id="otp" name="otp" inputMode="numeric" pattern="[0-9]{6}" autoComplete="one-time-code" width="100%" />
        </FormGroup>
        <Button variant="contained" type="submit" width="100%">Log in</Button>
      </Box>
    </Box>
  );
};

export default Login;
