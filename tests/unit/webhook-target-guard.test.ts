import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  classifyAddress,
  WebhookTargetGuard,
  type DnsLookup,
} from '../../src/modules/webhooks/webhook.target-guard.ts';
import { AppError } from '../../src/shared/errors.ts';

const dnsAnswers =
  (answers: Record<string, string[]>): DnsLookup =>
  async (hostname) => {
    const addresses = answers[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

async function refused(promise: Promise<unknown>, message: RegExp) {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof AppError);
    assert.equal(error.code, 'unsafe_webhook_target');
    assert.match(error.message, message);
    return true;
  });
}

describe('webhook target guard (SSRF)', () => {
  it('when addresses are classified, then loopback, private, link-local, metadata and reserved ranges are recognised', () => {
    const cases: Array<[string, string]> = [
      ['93.184.216.34', 'public'],
      ['2606:4700::1111', 'public'],
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['::1', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.1', 'public'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'private'],
      ['fd12:3456::1', 'private'],
      ['169.254.169.254', 'link-local'],
      ['fe80::1', 'link-local'],
      ['fd00:ec2::254', 'metadata'],
      ['fd00:ec2:0:0:0:0:0:254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['0.0.0.0', 'reserved'],
      ['::', 'reserved'],
      ['224.0.0.1', 'reserved'],
      ['255.255.255.255', 'reserved'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::ffff:169.254.169.254', 'link-local'],
      ['64:ff9b::a00:1', 'private'],
      ['64:ff9b:1::1', 'private'],
      ['::ffff:0:a00:1', 'private'],
      ['2002:a00:1::1', 'private'],
      ['2002:5db8:d822::1', 'public'],
      ['::127.0.0.1', 'loopback'],
      ['::7f00:1', 'loopback'],
      ['::a9fe:a9fe', 'link-local'],
      ['0:0:0:0:0:0:a00:1', 'private'],
      ['::5db8:d822', 'reserved'],
      ['100::1', 'reserved'],
      ['4000::1', 'reserved'],
      ['2001:db8::1', 'reserved'],
      ['2001::1', 'reserved'],
      ['fe80::1%eth0', 'link-local'],
      ['127.1', 'reserved'],
      ['not-an-ip', 'reserved'],
    ];
    for (const [address, expected] of cases) assert.equal(classifyAddress(address), expected, address);
  });

  it('when private targets are not allowed, then http, credentials and every non-public address are refused', async () => {
    const guard = new WebhookTargetGuard({
      allowPrivateTargets: false,
      lookup: dnsAnswers({
        'hooks.example.com': ['93.184.216.34'],
        'internal.example.com': ['10.0.0.7'],
        'mixed.example.com': ['93.184.216.34', '127.0.0.1'],
      }),
    });
    assert.equal((await guard.check('https://hooks.example.com/in')).host, 'hooks.example.com');
    await refused(guard.check('http://hooks.example.com/in'), /must use https/);
    await refused(guard.check('https://user:pw@hooks.example.com/in'), /credentials/);
    await refused(guard.check('https://hooks.example.com:0/in'), /port 0/);
    assert.equal((await guard.check('https://hooks.example.com:8443/in')).port, '8443');
    await refused(guard.check('ftp://hooks.example.com'), /https/);
    // a malformed address is a validation error, not an unsafe target
    for (const malformed of ['not a url', 'https://hooks.example.com:99999/in'])
      await assert.rejects(guard.check(malformed), (error: unknown) => {
        assert.ok(error instanceof AppError);
        assert.equal(error.code, 'validation_failed');
        assert.match(error.message + JSON.stringify(error.extras), /absolute URL/);
        return true;
      });
    await refused(guard.check('https://internal.example.com/in'), /private address \(10\.0\.0\.7\)/);
    await refused(guard.check('https://mixed.example.com/in'), /loopback/);
    await refused(guard.check('https://127.0.0.1/in'), /loopback/);
    await refused(guard.check('https://[::1]/in'), /loopback/);
    await refused(guard.check('https://[::127.0.0.1]/in'), /loopback/);
    await refused(guard.check('https://[::169.254.169.254]/in'), /link-local/);
    await refused(guard.check('https://169.254.169.254/latest/meta-data'), /link-local/);
    await refused(guard.check('https://nowhere.example.com/in'), /does not resolve/);
  });

  it('when private targets are allowed (development), then loopback and http pass but metadata never does', async () => {
    const guard = new WebhookTargetGuard({
      allowPrivateTargets: true,
      lookup: dnsAnswers({ localhost: ['127.0.0.1'], imds: ['169.254.169.254'], 'aws6.example': ['fd00:ec2::254'] }),
    });
    assert.ok(await guard.check('http://localhost:8080/hooks'));
    assert.ok(await guard.check('http://10.0.0.8/hooks'));
    await refused(guard.check('http://imds/latest'), /link-local/);
    await refused(guard.check('http://aws6.example/latest'), /metadata/);
  });

  it('when a name is resolved for a delivery, then the first checked address is the one to connect to', async () => {
    const guard = new WebhookTargetGuard({
      allowPrivateTargets: false,
      lookup: dnsAnswers({ 'hooks.example.com': ['93.184.216.34', '93.184.216.35'] }),
    });
    assert.deepEqual(await guard.resolve(new URL('https://hooks.example.com/x')), {
      address: '93.184.216.34',
      family: 4,
    });
  });
});
