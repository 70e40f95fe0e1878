import type { TemplateFieldIn, TemplateIn, TemplateTagIn } from '../../../../shared/legacy.js';
import type { Domain } from '../domain.js';
import type { User } from '../users.js';
import { templateImportStatements } from '../../store/templateImport.js';
import { itemOwner } from '../../store/newIds.js';

/** Prepared upserts for the template tables; ids from the export are kept when free. */
export class TemplateWriter {
  private readonly s: ReturnType<typeof templateImportStatements>;

  /** `optionIds`: ids to give options the template names without one (ImportOptions.optionIds). */
  constructor(
    private readonly d: Domain,
    private readonly optionIds?: Record<string, Record<string, number>>,
  ) {
    this.s = templateImportStatements(d.ctx.db);
  }

  /** Inserts or updates a datatype tree; returns its id. Records already stored are kept. */
  datatype(t: TemplateIn, parentId: number | null, order: number, user: User, master: boolean): number {
    const m = t._database_metadata;
    const plugins = JSON.stringify(t.render_plugins ?? []);
    let id = this.s.dtByUuid.get(t.template_uuid);
    if (id === undefined) {
      const wanted = t.internal_id > 0 && this.s.dtIdFree.get({ id: t.internal_id, owner: t.template_uuid }) ? t.internal_id : null;
      id = Number(
        this.s.insDt.run(
          wanted,
          t.template_uuid,
          parentId,
          master ? 1 : 0,
          t.name,
          t.description,
          t.metadata_for_uuid,
          plugins,
          order,
          parentId === null ? user.id : null,
          m._create_date || this.d.now(),
          m._create_auth || user.display,
          m._public_date || this.d.now(),
          t.updated_at || this.d.now(),
          m._master_published_version,
          m._master_revision,
          m._tracking_master_version,
        ).lastInsertRowid,
      );
    } else {
      this.s.updDt.run(
        t.name,
        t.description,
        t.metadata_for_uuid,
        plugins,
        order,
        m._create_date,
        m._create_auth,
        m._public_date,
        t.updated_at,
        m._master_published_version,
        m._master_revision,
        m._tracking_master_version,
        id,
      );
    }
    t.fields.forEach((f, i) => this.field(f, id, i));
    t.related_databases.forEach((c, i) => this.datatype(c, id, i, user, master));
    return id;
  }

  field(f: TemplateFieldIn, datatypeId: number, order: number): number {
    const m = f._field_metadata;
    const plugins = JSON.stringify(f.render_plugins ?? []);
    let id = this.s.fieldByUuid.get(f.field_uuid);
    const common = [
      f.name,
      f.description,
      f.fieldtype,
      f.is_unique ? 1 : 0,
      plugins,
      order,
      m._create_date || this.d.now(),
      m._create_auth,
      m._public_date || '2200-01-01 00:00:00',
      f.updated_at || this.d.now(),
      m._master_published_version,
      m._master_revision,
      m._tracking_master_version,
    ];
    if (id === undefined) {
      const wanted = f.internal_id > 0 && this.s.fieldIdFree.get({ id: f.internal_id, owner: f.field_uuid }) ? f.internal_id : null;
      id = Number(this.s.insField.run(wanted, f.field_uuid, datatypeId, f.template_field_uuid, ...common).lastInsertRowid);
    } else {
      this.s.updField.run(f.template_field_uuid, ...common, id);
    }
    const ids = this.optionIds?.[f.field_uuid];
    f.radio_options?.forEach((o, i) =>
      this.option(id, o.template_radio_option_uuid, o.name, i, o.updated_at, ids?.[o.template_radio_option_uuid]),
    );
    const tag = (t: TemplateTagIn, parent: number | null, i: number) => {
      const order = t.display_order !== undefined && /^\d+$/.test(t.display_order) ? Number(t.display_order) : i;
      const tid = this.tag(id, t.template_tag_uuid, t.name, parent, order, t.updated_at, t.id);
      t.tags?.forEach((c, j) => tag(c, tid, j));
    };
    f.tags?.forEach((t, i) => tag(t, null, i));
    return id;
  }

  option(fieldId: number, uuid: string, name: string, order: number, updatedAt: string, wantedId?: number): number {
    const id = this.s.optionId.get(fieldId, uuid);
    const at = updatedAt || this.d.now();
    if (id !== undefined) {
      this.s.updOption.run(name, order, at, id);
      return id;
    }
    const free =
      wantedId !== undefined && wantedId > 0 && this.s.optionIdFree.get({ id: wantedId, owner: itemOwner(fieldId, uuid) })
        ? wantedId
        : null;
    return Number(this.s.insOption.run(free, uuid, fieldId, name, order, at, at).lastInsertRowid);
  }

  tag(fieldId: number, uuid: string, name: string, parentId: number | null, order: number, updatedAt: string, wanted?: string): number {
    const id = this.s.tagId.get(fieldId, uuid);
    const at = updatedAt || this.d.now();
    if (id !== undefined) {
      this.s.updTag.run(parentId, name, order, at, id);
      return id;
    }
    const n = wanted !== undefined && /^\d+$/.test(wanted) ? Number(wanted) : 0;
    const free = n > 0 && this.s.tagIdFree.get({ id: n, owner: itemOwner(fieldId, uuid) }) ? n : null;
    return Number(this.s.insTag.run(free, uuid, fieldId, parentId, name, order, at, at).lastInsertRowid);
  }
}
