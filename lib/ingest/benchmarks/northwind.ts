import { readFileSync } from "node:fs";
import path from "node:path";
import { parse } from "csv-parse/sync";
import neo4j, { type Driver } from "neo4j-driver";

/**
 * Loads the Neo4j Northwind example graph from the CSV files in `<datasetsDir>/neo4j-northwind/`.
 * The dataset's northwind.cypher fetches the same files with LOAD CSV from a web host; here Node reads
 * the local copies and sends rows as parameters (UNWIND $rows), with the statements of northwind.cypher
 * otherwise unchanged, so the graph matches the Text2Cypher "northwind" schema: Product, Category,
 * Supplier, Customer, Order; PART_OF, SUPPLIES, PURCHASED, ORDERS. Like LOAD CSV, every column is a
 * string (the text "NULL" included) unless northwind.cypher converts it, and an empty field is absent.
 *
 * This writes to the database: it is a setup step for tests and benchmarks, never a query path.
 */

export interface NorthwindLoadReport {
  nodes: number;
  relationships: number;
  elapsedMs: number;
}

const BATCH_SIZE = 500;

const CONSTRAINTS = [
  "CREATE CONSTRAINT Product_productID IF NOT EXISTS FOR (p:Product) REQUIRE (p.productID) IS UNIQUE",
  "CREATE CONSTRAINT Category_categoryID IF NOT EXISTS FOR (c:Category) REQUIRE (c.categoryID) IS UNIQUE",
  "CREATE CONSTRAINT Supplier_supplierID IF NOT EXISTS FOR (s:Supplier) REQUIRE (s.supplierID) IS UNIQUE",
  "CREATE CONSTRAINT Customer_customerID IF NOT EXISTS FOR (c:Customer) REQUIRE (c.customerID) IS UNIQUE",
  "CREATE CONSTRAINT Order_orderID IF NOT EXISTS FOR (o:Order) REQUIRE (o.orderID) IS UNIQUE",
];

/** northwind.cypher's steps in its order: a CSV file with the statement its rows feed, or a linking statement. */
const STEPS: { csv?: string; cypher: string }[] = [
  {
    csv: "products.csv",
    cypher: `UNWIND $rows AS row
MERGE (n:Product {productID:row.productID})
SET n += row,
n.unitPrice = toFloat(row.unitPrice),
n.unitsInStock = toInteger(row.unitsInStock), n.unitsOnOrder = toInteger(row.unitsOnOrder),
n.reorderLevel = toInteger(row.reorderLevel), n.discontinued = (row.discontinued <> "0")`,
  },
  { csv: "categories.csv", cypher: "UNWIND $rows AS row MERGE (n:Category {categoryID:row.categoryID}) SET n += row" },
  { csv: "suppliers.csv", cypher: "UNWIND $rows AS row MERGE (n:Supplier {supplierID:row.supplierID}) SET n += row" },
  { cypher: "MATCH (p:Product),(c:Category) WHERE p.categoryID = c.categoryID MERGE (p)-[:PART_OF]->(c)" },
  { cypher: "MATCH (p:Product),(s:Supplier) WHERE p.supplierID = s.supplierID MERGE (s)-[:SUPPLIES]->(p)" },
  { csv: "customers.csv", cypher: "UNWIND $rows AS row MERGE (n:Customer {customerID:row.customerID}) SET n += row" },
  { csv: "orders.csv", cypher: "UNWIND $rows AS row MERGE (n:Order {orderID:row.orderID}) SET n += row" },
  { cypher: "MATCH (c:Customer),(o:Order) WHERE c.customerID = o.customerID MERGE (c)-[:PURCHASED]->(o)" },
  {
    csv: "order-details.csv",
    cypher: `UNWIND $rows AS row
MATCH (p:Product), (o:Order)
WHERE p.productID = row.productID AND o.orderID = row.orderID
MERGE (o)-[details:ORDERS]->(p)
SET details = row,
details.quantity = toInteger(row.quantity)`,
  },
];

/**
 * Rows as LOAD CSV WITH HEADERS reads them: fields mapped to headers by position, extra fields
 * dropped (suppliers.csv has an unquoted "Pavlova, Ltd." that shifts that row, in the original graph
 * too), and an empty field left out, as LOAD CSV gives null for it and `SET n += row` skips nulls.
 */
function readCsv(file: string): Record<string, string>[] {
  const [header, ...rows] = parse(readFileSync(file), { relax_column_count: true, skip_empty_lines: true, bom: true }) as string[][];
  if (!header) return [];
  return rows.map((fields) => {
    const row: Record<string, string> = {};
    header.forEach((name, i) => {
      const value = fields[i];
      if (value !== undefined && value !== "") row[name] = value;
    });
    return row;
  });
}

export async function loadNorthwindCsv(
  driver: Driver,
  datasetsDir: string,
  options: { database?: string } = {},
): Promise<NorthwindLoadReport> {
  const started = performance.now();
  const dir = path.join(datasetsDir, "neo4j-northwind");
  const session = driver.session({ database: options.database });
  try {
    // Schema changes cannot share a transaction with data writes: one auto-commit statement each.
    for (const statement of CONSTRAINTS) await session.run(statement);
    for (const step of STEPS) {
      if (!step.csv) {
        await session.executeWrite((tx) => tx.run(step.cypher));
        continue;
      }
      const rows = readCsv(path.join(dir, step.csv));
      for (let from = 0; from < rows.length; from += BATCH_SIZE) {
        const batch = rows.slice(from, from + BATCH_SIZE);
        await session.executeWrite((tx) => tx.run(step.cypher, { rows: batch }));
      }
    }
    // Counted by Northwind's own labels and types: the database may hold other graphs too.
    const counts = await session.executeRead(async (tx) => {
      const nodes = await tx.run("MATCH (n) WHERE n:Product OR n:Category OR n:Supplier OR n:Customer OR n:Order RETURN count(n) AS c");
      const rels = await tx.run("MATCH ()-[r:PART_OF|SUPPLIES|PURCHASED|ORDERS]->() RETURN count(r) AS c");
      return {
        nodes: neo4j.integer.toNumber(nodes.records[0]!.get("c")),
        relationships: neo4j.integer.toNumber(rels.records[0]!.get("c")),
      };
    });
    return { ...counts, elapsedMs: Math.round(performance.now() - started) };
  } finally {
    await session.close();
  }
}
