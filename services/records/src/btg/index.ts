// Break-the-glass: the procedures (the grants the need-to-know check honours live in the database).
export { btgRouter } from './procedures.ts';
