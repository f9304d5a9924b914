package dev.zklock.sample.orders;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * An order of some units of one product from one warehouse.
 *
 * @param id the order id
 * @param warehouse the warehouse the units come from
 * @param sku the product
 * @param quantity the units ordered
 * @param status where the order stands
 * @param reason why it was rejected, or {@code null}
 * @param instance the instance that placed it
 * @param createdAt when it was placed
 * @param updatedAt when it last changed
 */
public record Order(long id, String warehouse, String sku, int quantity, OrderStatus status, @Nullable String reason,
		String instance, Instant createdAt, Instant updatedAt) {

}
