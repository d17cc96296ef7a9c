// The demo library: three categories and three published PDF guides (public, members-only, premium),
// created through the library's own service as the demo client admin, so each is stored, audited and
// announced like an upload: its `resource.published` event starts ingestion in the worker, and within
// seconds the chat answers from it. Idempotent: a category or document whose name exists is left alone.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import PDFDocument from 'pdfkit';
import type { Container } from '../src/container.ts';
import { ResourceCategory } from '../src/modules/library/category.model.ts';
import { Resource } from '../src/modules/library/resource.model.ts';
import { newTempKey } from '../src/modules/library/upload/storage-engine.ts';
import type { Actor } from '../src/shared/access/actor.ts';
import { demoLibraryDocuments, type DemoDocument } from './demo-library.documents.ts';

/** One A4 page per topic: its heading in bold, then its text. */
export async function renderDemoPdf(document: DemoDocument): Promise<Buffer> {
  const pdf = new PDFDocument({
    autoFirstPage: false,
    margin: 60,
    info: { Title: document.name, Author: 'Demo Association', CreationDate: new Date(0) },
  });
  const chunks: Buffer[] = [];
  pdf.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<void>((resolve, reject) => {
    pdf.on('end', resolve);
    pdf.on('error', reject);
  });
  for (const page of document.pages) {
    pdf.addPage({ size: 'A4' });
    pdf.font('Helvetica-Bold').fontSize(16).text(page.heading).moveDown();
    pdf.font('Helvetica').fontSize(11).text(page.text);
  }
  pdf.end();
  await done;
  return Buffer.concat(chunks);
}

/** Creates what is missing of the demo library; returns how many demo documents the organization has. */
export async function seedDemoLibrary(container: Container, actor: Actor): Promise<number> {
  const organizationId = actor.organizationId!;
  const { resources, resourceCategories } = container.services;
  for (const document of demoLibraryDocuments) {
    if (await Resource.findOne({ where: { organizationId, name: document.name } })) continue;
    const bytes = await renderDemoPdf(document);
    const tempKey = newTempKey();
    // the file first: storage that refuses it leaves no category behind either
    await container.storage.put(tempKey, Readable.from([bytes]), { contentType: 'application/pdf' });
    try {
      const existing = await ResourceCategory.findOne({ where: { organizationId, name: document.category.name } });
      const categoryId =
        existing?.id ??
        (await resourceCategories.create(actor, { name: document.category.name, icon: document.category.icon })).id;
      // the service takes the staged file over: it keeps it as version 1, or removes it on failure
      await resources.create(actor, {
        name: document.name,
        description: document.description,
        accessLevel: document.accessLevel,
        categoryIds: [categoryId],
        tags: document.tags,
        status: 'published',
        file: {
          tempKey,
          sizeBytes: bytes.length,
          sha256: createHash('sha256').update(bytes).digest('hex'),
          fileName: `${document.name.toLowerCase().replace(/\W+/g, '-')}.pdf`,
        },
      });
    } catch (error) {
      await container.storage.delete(tempKey).catch(() => undefined);
      throw error;
    }
  }
  return Resource.count({ where: { organizationId, name: demoLibraryDocuments.map((d) => d.name) } });
}
