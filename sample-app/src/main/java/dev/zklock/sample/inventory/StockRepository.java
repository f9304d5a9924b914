package dev.zklock.sample.inventory;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;

import org.springframework.dao.DuplicateKeyException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * Reads and writes the {@code stock} table. Every write carries a fencing token and
 * is refused when a holder with a larger token has written the row already.
 */
@Repository
public class StockRepository {

	private final JdbcClient jdbc;

	StockRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * One stock row.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @return the row, if any
	 */
	public Optional<StockLevel> find(String warehouse, String sku) {
		return this.jdbc
			.sql("SELECT warehouse, sku, quantity, fence, updated_at FROM stock WHERE warehouse = ? AND sku = ?")
			.params(warehouse, sku)
			.query(StockRepository::level)
			.optional();
	}

	/**
	 * Every stock row, by warehouse and product.
	 * @return the rows
	 */
	public List<StockLevel> findAll() {
		return this.jdbc.sql("SELECT warehouse, sku, quantity, fence, updated_at FROM stock ORDER BY warehouse, sku")
			.query(StockRepository::level)
			.list();
	}

	/**
	 * Claim a row for the holder of a token before reading it: raise its fence to the
	 * token, so that a holder with a smaller token can no longer write it. Without
	 * the claim, an older holder that wakes up between our read and our write could
	 * still write, and we would write over its change.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param token the fencing token of our lock
	 * @return whether the row exists and no newer holder has claimed it
	 */
	public boolean claim(String warehouse, String sku, long token) {
		return this.jdbc.sql("UPDATE stock SET fence = ? WHERE warehouse = ? AND sku = ? AND fence <= ?")
			.params(token, warehouse, sku, token)
			.update() == 1;
	}

	/**
	 * Write a quantity, fenced: the write is refused (0 rows updated) when a holder
	 * with a larger token has claimed or written the row since we claimed it.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the new quantity
	 * @param token the fencing token of our lock
	 * @return whether the write was accepted
	 */
	public boolean write(String warehouse, String sku, int quantity, long token) {
		return this.jdbc
			.sql("UPDATE stock SET quantity = ?, fence = ?, updated_at = CURRENT_TIMESTAMP "
					+ "WHERE warehouse = ? AND sku = ? AND fence <= ?")
			.params(quantity, token, warehouse, sku, token)
			.update() == 1;
	}

	/**
	 * Add a row.
	 * @param warehouse the warehouse
	 * @param sku the product
	 * @param quantity the quantity
	 * @param token the fencing token of our lock, 0 when none is held
	 * @return whether the row was added; false when it exists already
	 */
	public boolean insert(String warehouse, String sku, int quantity, long token) {
		try {
			this.jdbc.sql("INSERT INTO stock (warehouse, sku, quantity, fence) VALUES (?, ?, ?, ?)")
				.params(warehouse, sku, quantity, token)
				.update();
			return true;
		}
		catch (DuplicateKeyException ex) {
			return false;
		}
	}

	private static StockLevel level(ResultSet rs, int row) throws SQLException {
		Instant updatedAt = rs.getObject("updated_at", OffsetDateTime.class).toInstant();
		return new StockLevel(rs.getString("warehouse"), rs.getString("sku"), rs.getInt("quantity"),
				rs.getLong("fence"), updatedAt);
	}

}
