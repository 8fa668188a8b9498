// The dashboard's data tables: a table in its sideways-scrolling region, with one heading row and
// the rows a view passes in; and the cells its rows share (a link to the object, its status).
import type { ComponentChildren } from 'preact';
import { Badge, Link, TableScroll } from './ui.tsx';
import type { LabelFamily } from './i18n/index.ts';

/** A column heading, or a heading and its class (`num` for a right-aligned number column). */
export type Column = string | readonly [heading: string, cls: string];

export function DataTable(props: { label: string; columns: readonly Column[]; caption?: string; children: ComponentChildren }) {
  return (
    <TableScroll label={props.label}>
      <table>
        {props.caption && <caption class="sr-only">{props.caption}</caption>}
        <thead>
          <tr>
            {props.columns.map((c) => {
              const [heading, cls] = typeof c === 'string' ? [c, undefined] : c;
              return (
                <th key={heading} scope="col" class={cls}>
                  {heading}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </TableScroll>
  );
}

/** A cell that links to the row's own view (its order ID, most often). */
export function LinkCell(props: { to: string; class: string; children: ComponentChildren }) {
  return (
    <td class={props.class}>
      <Link to={props.to}>{props.children}</Link>
    </td>
  );
}

export function StatusCell({ value, kind }: { value: string; kind: LabelFamily }) {
  return (
    <td>
      <Badge value={value} kind={kind} />
    </td>
  );
}
