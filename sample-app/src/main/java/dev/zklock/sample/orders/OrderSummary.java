package dev.zklock.sample.orders;

import java.util.Map;

/**
 * How many orders of one product stand where, and how many units they hold.
 *
 * @param sku the product
 * @param orders the number of orders per status
 * @param units the number of units per status
 */
public record OrderSummary(String sku, Map<OrderStatus, Long> orders, Map<OrderStatus, Long> units) {

}
