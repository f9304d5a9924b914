package dev.zklock.sample.orders;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.jdbc.support.KeyHolder;
import org.springframework.stereotype.Repository;

/**
 * Reads and writes the {@code orders} table.
 */
@Repository
public class OrderRepository {

	private static final String COLUMNS = "id, warehouse, sku, quantity, status, reason, instance, created_at, updated_at";

	private final JdbcClient jdbc;

	OrderRepository(JdbcClient jdbc) {
		this.jdbc = jdbc;
	}

	/**
	 * Add an order.
	 * @param order the request
	 * @param status the first status
	 * @param instance the instance that places it
	 * @return the order
	 */
	public Order insert(NewOrder order, OrderStatus status, String instance) {
		OffsetDateTime now = now();
		KeyHolder keys = new GeneratedKeyHolder();
		this.jdbc
			.sql("INSERT INTO orders (warehouse, sku, quantity, status, instance, created_at, updated_at) "
					+ "VALUES (?, ?, ?, ?, ?, ?, ?)")
			.params(order.warehouse(), order.sku(), order.quantity(), status.name(), instance, now, now)
			.update(keys, "id");
		long id = Objects.requireNonNull(keys.getKeyAs(Long.class), "The database returned no generated order id");
		return new Order(id, order.warehouse(), order.sku(), order.quantity(), status, null, instance, now.toInstant(),
				now.toInstant());
	}

	/**
	 * One order.
	 * @param id the id
	 * @return the order, if any
	 */
	public Optional<Order> find(long id) {
		return this.jdbc.sql("SELECT " + COLUMNS + " FROM orders WHERE id = ?")
			.param(id)
			.query(OrderRepository::order)
			.optional();
	}

	/**
	 * The latest orders, optionally of one product only.
	 * @param sku the product, or {@code null} for all
	 * @param limit the largest number of orders
	 * @return the orders, newest first
	 */
	public List<Order> findLatest(@Nullable String sku, int limit) {
		String where = (sku != null) ? " WHERE sku = :sku" : "";
		JdbcClient.StatementSpec statement = this.jdbc
			.sql("SELECT " + COLUMNS + " FROM orders" + where + " ORDER BY id DESC LIMIT :limit")
			.param("limit", limit);
		if (sku != null) {
			statement = statement.param("sku", sku);
		}
		return statement.query(OrderRepository::order).list();
	}

	/**
	 * The ids of reserved orders placed before a time.
	 * @param cutoff the time
	 * @param limit the largest number of ids
	 * @return the ids, oldest first
	 */
	public List<Long> findReservedBefore(Instant cutoff, int limit) {
		return this.jdbc.sql("SELECT id FROM orders WHERE status = 'RESERVED' AND created_at < ? ORDER BY id LIMIT ?")
			.params(cutoff.atOffset(ZoneOffset.UTC), limit)
			.query(Long.class)
			.list();
	}

	/**
	 * Set an order's status.
	 * @param order the order
	 * @param status the new status
	 * @param reason why, or {@code null}
	 * @return the order as changed
	 */
	public Order setStatus(Order order, OrderStatus status, @Nullable String reason) {
		OffsetDateTime now = now();
		this.jdbc.sql("UPDATE orders SET status = ?, reason = ?, updated_at = ? WHERE id = ?")
			// one by one: param(Object) takes a null reason, params(Object...) does not say so
			.param(status.name())
			.param(reason)
			.param(now)
			.param(order.id())
			.update();
		return new Order(order.id(), order.warehouse(), order.sku(), order.quantity(), status, reason, order.instance(),
				order.createdAt(), now.toInstant());
	}

	/**
	 * Set an order's quantity.
	 * @param order the order
	 * @param quantity the new quantity
	 * @return the order as changed
	 */
	public Order setQuantity(Order order, int quantity) {
		OffsetDateTime now = now();
		this.jdbc.sql("UPDATE orders SET quantity = ?, updated_at = ? WHERE id = ?")
			.params(quantity, now, order.id())
			.update();
		return new Order(order.id(), order.warehouse(), order.sku(), quantity, order.status(), order.reason(),
				order.instance(), order.createdAt(), now.toInstant());
	}

	/**
	 * Count the orders of one product and their units, per status.
	 * @param sku the product
	 * @return the summary
	 */
	public OrderSummary summarize(String sku) {
		Map<OrderStatus, Long> orders = new EnumMap<>(OrderStatus.class);
		Map<OrderStatus, Long> units = new EnumMap<>(OrderStatus.class);
		this.jdbc.sql("SELECT status, COUNT(*) AS orders, SUM(quantity) AS units FROM orders WHERE sku = ? GROUP BY status")
			.param(sku)
			.query((rs) -> {
				OrderStatus status = OrderStatus.valueOf(rs.getString("status"));
				orders.put(status, rs.getLong("orders"));
				units.put(status, rs.getLong("units"));
			});
		return new OrderSummary(sku, orders, units);
	}

	private static OffsetDateTime now() {
		return OffsetDateTime.now(ZoneOffset.UTC);
	}

	private static Order order(ResultSet rs, int row) throws SQLException {
		return new Order(rs.getLong("id"), rs.getString("warehouse"), rs.getString("sku"), rs.getInt("quantity"),
				OrderStatus.valueOf(rs.getString("status")), rs.getString("reason"), rs.getString("instance"),
				rs.getObject("created_at", OffsetDateTime.class).toInstant(),
				rs.getObject("updated_at", OffsetDateTime.class).toInstant());
	}

}
