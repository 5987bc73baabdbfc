import Database from "better-sqlite3";
import { mulberry32 } from "../random";

/**
 * The demo SQLite sales database of Aurora Outfitters, generated deterministically (same seed, same
 * rows) so demo questions have stable answers. Product names match the RDF product graph.
 */
export const DEMO_PRODUCTS = [
  ["Summit 2 Tent", "Tents", 349.0],
  ["Basecamp 4 Tent", "Tents", 529.0],
  ["Fjord Down Jacket", "Jackets", 289.0],
  ["Storm Shell Jacket", "Jackets", 219.0],
  ["Trail Runner 2", "Footwear", 139.0],
  ["Ridge Hiking Boot", "Footwear", 189.0],
  ["Daypack 22", "Backpacks", 89.0],
  ["Expedition 65 Backpack", "Backpacks", 259.0],
  ["Arctic Sleeping Bag", "Sleeping bags", 399.0],
  ["Summer Sleeping Bag", "Sleeping bags", 119.0],
] as const;

const REGIONS = [
  [1, "Nordics", "Sweden"],
  [2, "Nordics", "Norway"],
  [3, "Central Europe", "Germany"],
  [4, "Central Europe", "Austria"],
  [5, "United Kingdom", "United Kingdom"],
] as const;

const CUSTOMERS = [
  ["Fjällklubben Uppsala", "Club", 1, "Uppsala"],
  ["Nordic Trails AB", "Retailer", 1, "Gothenburg"],
  ["Bergen Friluft", "Retailer", 2, "Bergen"],
  ["Tromsø Expeditions", "Tour operator", 2, "Tromsø"],
  ["Alpenweg GmbH", "Retailer", 3, "Munich"],
  ["Schwarzwald Camping", "Retailer", 3, "Freiburg"],
  ["Hamburg Outdoor Verein", "Club", 3, "Hamburg"],
  ["Tirol Bergsport", "Retailer", 4, "Innsbruck"],
  ["Wiener Wanderfreunde", "Club", 4, "Vienna"],
  ["Highland Gear Ltd", "Retailer", 5, "Inverness"],
  ["Peak District Adventures", "Tour operator", 5, "Sheffield"],
  ["London Ramblers", "Club", 5, "London"],
] as const;

export function createDemoSalesDatabase(file: string): void {
  const db = new Database(file);
  try {
    db.pragma("journal_mode = DELETE");
    db.exec(`
      CREATE TABLE regions (
        region_id INTEGER PRIMARY KEY,
        region TEXT NOT NULL,
        country TEXT NOT NULL
      );
      CREATE TABLE customers (
        customer_id INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        segment TEXT NOT NULL,
        region_id INTEGER NOT NULL REFERENCES regions(region_id),
        city TEXT NOT NULL
      );
      CREATE TABLE products (
        product_id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        category TEXT NOT NULL,
        list_price REAL NOT NULL
      );
      CREATE TABLE orders (
        order_id INTEGER PRIMARY KEY,
        customer_id INTEGER NOT NULL REFERENCES customers(customer_id),
        order_date TEXT NOT NULL,
        status TEXT NOT NULL
      );
      CREATE TABLE order_items (
        order_id INTEGER NOT NULL REFERENCES orders(order_id),
        product_id INTEGER NOT NULL REFERENCES products(product_id),
        quantity INTEGER NOT NULL,
        unit_price REAL NOT NULL,
        PRIMARY KEY (order_id, product_id)
      );
    `);
    const rand = mulberry32(2025);
    const tx = db.transaction(() => {
      const r = db.prepare("INSERT INTO regions VALUES (?, ?, ?)");
      for (const row of REGIONS) r.run(...row);
      const c = db.prepare("INSERT INTO customers (customer_id, name, segment, region_id, city) VALUES (?, ?, ?, ?, ?)");
      CUSTOMERS.forEach((row, i) => c.run(i + 1, ...row));
      const p = db.prepare("INSERT INTO products (product_id, name, category, list_price) VALUES (?, ?, ?, ?)");
      DEMO_PRODUCTS.forEach((row, i) => p.run(i + 1, ...row));
      const o = db.prepare("INSERT INTO orders (order_id, customer_id, order_date, status) VALUES (?, ?, ?, ?)");
      const it = db.prepare("INSERT INTO order_items (order_id, product_id, quantity, unit_price) VALUES (?, ?, ?, ?)");
      for (let id = 1; id <= 120; id++) {
        const customer = 1 + Math.floor(rand() * CUSTOMERS.length);
        const month = 1 + Math.floor(rand() * 12);
        const day = 1 + Math.floor(rand() * 28);
        const year = rand() < 0.45 ? 2024 : 2025;
        const status = rand() < 0.08 ? "returned" : "shipped";
        o.run(id, customer, `${year}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`, status);
        const lines = 1 + Math.floor(rand() * 3);
        const used = new Set<number>();
        for (let l = 0; l < lines; l++) {
          const product = 1 + Math.floor(rand() * DEMO_PRODUCTS.length);
          if (used.has(product)) continue;
          used.add(product);
          const discount = rand() < 0.3 ? 0.9 : 1;
          it.run(id, product, 1 + Math.floor(rand() * 8), Math.round(DEMO_PRODUCTS[product - 1][2] * discount * 100) / 100);
        }
      }
    });
    tx();
  } finally {
    db.close();
  }
}
