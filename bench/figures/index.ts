/** Every figure, in the order the table shows them. */
import type { Figure } from '../report';

export const figures: Figure[] = [];
