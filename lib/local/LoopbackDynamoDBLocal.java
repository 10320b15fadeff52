import java.io.IOException;
import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Runs Amazon's DynamoDB Local (its jar on the class path) listening on 127.0.0.1 only.
 *
 * DynamoDB Local has no option for the address it listens on: it builds a Jetty server with
 * {@code new Server(port)}, whose connector binds every interface. This builds the server exactly as
 * DynamoDB Local's own main does (same command-line options), sets the connector's host to the loopback
 * address before the server starts, and only then starts it. If the jar ever changes so that this cannot
 * be done, it exits with an error rather than listen on every interface.
 *
 * It also exits when its standard input reaches end of file: the service that started it keeps that pipe
 * open for as long as it lives, so DynamoDB Local never outlives it, even when it is killed outright.
 *
 * Started by lib/local/dynamodb.ts as a single-file source program: java -cp DynamoDBLocal.jar this-file.java.
 */
public class LoopbackDynamoDBLocal {
  private static final String HOST = "127.0.0.1";

  public static void main(String[] args) {
    try {
      DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
      Field field = DynamoDBProxyServer.class.getDeclaredField("server");
      field.setAccessible(true);
      Server jetty = (Server) field.get(proxy);
      Connector[] connectors = jetty.getConnectors();
      if (connectors.length == 0) fail("DynamoDB Local's server has no connector");
      for (Connector connector : connectors) {
        if (!(connector instanceof ServerConnector)) fail("unexpected connector " + connector.getClass().getName());
        ((ServerConnector) connector).setHost(HOST);
      }

      Thread watchdog = new Thread(LoopbackDynamoDBLocal::exitAtEndOfInput, "stdin-watchdog");
      watchdog.setDaemon(true);
      watchdog.start();

      proxy.start();
      // DynamoDBProxyServer.start() reports a port it cannot bind and stops the server instead of throwing.
      if (!jetty.isStarted()) fail("DynamoDB Local did not start");
      System.out.println("DynamoDB Local listening on " + HOST + ":" + ((ServerConnector) connectors[0]).getLocalPort());
    } catch (Exception e) {
      e.printStackTrace();
      fail("could not start DynamoDB Local on " + HOST + ": " + e);
    }
  }

  private static void exitAtEndOfInput() {
    try {
      while (System.in.read() != -1) {
        // nothing is ever sent; only the end of input matters
      }
    } catch (IOException e) {
      // a broken pipe means the parent is gone, too
    }
    System.exit(0);
  }

  private static void fail(String message) {
    System.err.println(message);
    System.exit(1);
  }
}
