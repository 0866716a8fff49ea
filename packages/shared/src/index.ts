export * from "./common.js";
export * from "./custom-field.js";
export * from "./customer.js";
export * from "./admin.js";
