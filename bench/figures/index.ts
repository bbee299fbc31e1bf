/** Every figure, in the order the table shows them. */
import type { Figure } from '../report';
import { hostFigure } from './host';

export const figures: Figure[] = [hostFigure];
