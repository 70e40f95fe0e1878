import { chemistryPieces, type ChemOptions } from '../../../shared/plugins/chemistry';

/** A Chemistry Field value with its sub- and superscripts; the text is never parsed as HTML. */
export function Formula({ value, options }: { value: string; options?: ChemOptions }) {
  return (
    <span className="chem">
      {chemistryPieces(value, options).map((p, i) => {
        if (p.sub && p.sup)
          return (
            <sub key={i}>
              <sup>{p.text}</sup>
            </sub>
          );
        if (p.sub) return <sub key={i}>{p.text}</sub>;
        if (p.sup) return <sup key={i}>{p.text}</sup>;
        return <span key={i}>{p.text}</span>;
      })}
    </span>
  );
}
