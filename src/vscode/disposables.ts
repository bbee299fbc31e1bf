/**
 * The base of every class that owns subscriptions, emitters or editor registrations: children are
 * registered as they are made and disposed once, newest first; one registered after the owner was
 * disposed is disposed at once. No `vscode` import (a `dispose()` is all it needs), so it is tested
 * on plain Node.
 */
export interface DisposableLike {
  dispose(): unknown;
}

export class Disposables implements DisposableLike {
  private readonly children: DisposableLike[] = [];
  private isDisposed = false;

  /** Whether `dispose()` has run. */
  protected get disposed(): boolean {
    return this.isDisposed;
  }

  /** Owns `child` from now on: it is disposed with this object. */
  protected register<T extends DisposableLike>(child: T): T {
    if (this.isDisposed) child.dispose();
    else this.children.push(child);
    return child;
  }

  /** Disposes every child once, newest first; a child that throws does not keep the others. */
  dispose(): void {
    if (this.isDisposed) return;
    this.isDisposed = true;
    const errors: unknown[] = [];
    for (const child of this.children.splice(0).reverse()) {
      try {
        child.dispose();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length === 1) throw errors[0];
    if (errors.length > 1) throw new AggregateError(errors, `${errors.length} children failed to dispose`);
  }
}
