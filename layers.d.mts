export interface LayerRule {
  /** A folder of src, or of the engine (`engine/search`). */
  layer: string;
  /** Why, as the lint says it. */
  says: string;
  /** Folders (or root modules, as `protocol`) of src it may not import; for a folder of the engine, of src/engine. */
  notLayers: string[];
  /** Packages it may not import. */
  notPackages: string[];
  /** No Node built-in modules (it runs in a browser, or is the ground floor). */
  noNode: boolean;
}
export declare const LAYER_RULES: LayerRule[];
/** The engine's floors, lowest first. */
export declare const ENGINE_FLOORS: Array<{ folders: string[]; says: string }>;
/** The layers as flat-config blocks of `no-restricted-imports`, one per layer and folder depth. */
export declare function layerLintConfig(): object[];
