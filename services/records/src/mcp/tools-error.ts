/** Input the procedures never saw refused by a tool itself: a mistake the agent can correct from the message. */
export class ToolInputError extends Error {}
