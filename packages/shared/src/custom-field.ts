import { z } from "zod";
import { jsonValue, requiredText, text } from "./common.js";

/** CRM or ERP integration field. */
export const customField = z
  .strictObject({
    serviceCustomFieldName: requiredText(),
    valueType: z.enum(["String"]).optional(),
    integrationSource: text(100).optional().meta({ description: "Name of the ERP system." }),
    integrationEntityType: text(200).optional(),
    fieldPath: text(1000).optional(),
    value: jsonValue.optional().meta({ description: "Any JSON value." }),
  })
  .meta({ id: "CustomField" });
export type CustomField = z.infer<typeof customField>;

export const customFieldValue = z
  .strictObject({
    customFieldDefinitionId: requiredText(),
    value: text(),
    fieldName: text(200).optional(),
  })
  .meta({ id: "CustomFieldValue" });
export type CustomFieldValue = z.infer<typeof customFieldValue>;
