export interface LayerRule {
  /** A folder of src. */
  layer: string;
  /** Why, as the lint says it. */
  says: string;
  /** Folders (or root modules, as `protocol`) of src it may not import. */
  notLayers: string[];
  /** Packages it may not import. */
  notPackages: string[];
  /** No Node built-in modules (it runs in a browser, or is the ground floor). */
  noNode: boolean;
}
export declare const LAYER_RULES: LayerRule[];
/** The layers as flat-config blocks of `no-restricted-imports`, one per layer and folder depth. */
export declare function layerLintConfig(): object[];
