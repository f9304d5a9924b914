package dev.zklock.sample.jobs;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

import dev.zklock.annotation.Leader;
import dev.zklock.sample.InstanceName;
import dev.zklock.sample.SampleProperties;
import dev.zklock.sample.orders.OrderRepository;
import dev.zklock.sample.orders.OrderService;

/**
 * Expires orders that were not paid within the payment window and puts their stock
 * back. Every instance schedules it, but only the leader of role
 * {@value #NAME} runs it; the others skip their turns and stand by, and one of them
 * takes over when the leader stops or loses its ZooKeeper session.
 */
@Component
public class OrderExpiryJob {

	/**
	 * The name of the job and of its leadership role.
	 */
	public static final String NAME = "order-expiry";

	private static final int BATCH = 100;

	private static final Logger logger = LoggerFactory.getLogger(OrderExpiryJob.class);

	private final OrderRepository orders;

	private final OrderService orderService;

	private final JobRunRepository runs;

	private final InstanceName instance;

	private final Duration paymentWindow;

	OrderExpiryJob(OrderRepository orders, OrderService orderService, JobRunRepository runs, InstanceName instance,
			SampleProperties properties) {
		this.orders = orders;
		this.orderService = orderService;
		this.runs = runs;
		this.instance = instance;
		this.paymentWindow = properties.getOrders().getPaymentWindow();
	}

	/**
	 * Run once, if this instance leads the role.
	 */
	@Scheduled(initialDelayString = "${sample.orders.expiry-interval:30s}",
			fixedDelayString = "${sample.orders.expiry-interval:30s}")
	@Leader(NAME)
	public void run() {
		Instant started = Instant.now();
		Instant cutoff = started.minus(this.paymentWindow);
		List<Long> candidates = this.orders.findReservedBefore(cutoff, BATCH);
		int expired = 0;
		for (long id : candidates) {
			if (this.orderService.expire(id, cutoff).isPresent()) {
				expired++;
			}
		}
		this.runs.add(NAME, this.instance.get(), started, Instant.now(), expired);
		if (expired > 0) {
			logger.info("Job '{}' expired {} unpaid order(s) placed before {}", NAME, expired, cutoff);
		}
	}

}
